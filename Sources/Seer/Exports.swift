// What `import Seer` brings: the engine and every type its API speaks in.
@_exported import SeerImage
@_exported import SeerPlateText
@_exported import SeerQR
@_exported import SeerStore
@_exported import SeerVerify

// The plate reader's public types; its internals (segmentation, the glyph classifiers) stay inside.
@_exported import struct SeerPlate.PlateCandidate
@_exported import struct SeerPlate.PlateCharacter
@_exported import struct SeerPlate.PlateError
@_exported import struct SeerPlate.PlateEvidence
@_exported import struct SeerPlate.PlateFinding
@_exported import struct SeerPlate.PlateFormat
@_exported import struct SeerPlate.PlateGrammar
@_exported import struct SeerPlate.PlateNormalization
@_exported import enum SeerPlate.PlateOutcome
@_exported import class SeerPlate.PlateReader
@_exported import struct SeerPlate.PlateReading
// The sequence recogniser's shipped model, for timing it on its own (`plate-bench --time-recognizer`).
@_exported import struct SeerPlate.SequenceRecognizer
