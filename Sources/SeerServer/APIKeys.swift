// API keys live in the store (`SeerStore`'s `APIKeyStore` over table `apiKey`), so every replica on
// one database knows the same keys; the service's own names for them, for users of this module alone.
@_exported import class SeerStore.APIKeyStore
@_exported import struct SeerStore.APIKeyInfo
@_exported import protocol SeerStore.APIKeyStorage
@_exported import enum SeerStore.Role
