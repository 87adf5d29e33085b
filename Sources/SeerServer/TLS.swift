import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore

/// A certificate chain and its private key, PEM files the operator provides, for serving HTTPS
/// (`seer serve --tls-cert FILE --tls-key FILE`). Browsers let a page use the camera only over HTTPS
/// or on localhost: a phone that opens the web app across the network needs this, or a reverse proxy
/// that ends TLS in front of the service.
public struct TLSFiles: Sendable, Equatable {
    /// The certificate chain, PEM: the server's certificate first, then its intermediates.
    public var certificate: String
    /// The private key, PEM.
    public var key: String

    /// The two files.
    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// The server's TLS configuration, with the files read and checked.
    func configuration() throws(TLSFileError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw TLSFileError(file: certificate, message: "cannot read a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw TLSFileError(file: certificate, message: "holds no PEM certificate") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw TLSFileError(file: key, message: "cannot read a PEM private key (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    }
}

/// A certificate or key file that cannot be used.
public struct TLSFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// What is wrong with it.
    public var message: String
    /// `FILE: MESSAGE`.
    public var description: String { "\(file): \(message)" }
}

extension SeerService {
    /// What runs once the server listens, with its channel (`seer serve` prints the address).
    public typealias ServerRunning = @Sendable (any Channel) async -> Void

    /// Runs the service until SIGINT or SIGTERM: over HTTP, or over HTTPS when `tls` is given.
    /// - Throws: ``TLSFileError`` when a certificate or key file cannot be used; what the server throws.
    public func run(tls: TLSFiles?, onServerRunning: @escaping ServerRunning = { _ in }) async throws {
        try await application(tls: tls, onServerRunning: onServerRunning).runService()
    }

    /// The application: listens where configured, over HTTPS when `tls` is given, and shuts down
    /// gracefully on SIGINT and SIGTERM.
    /// - Throws: ``TLSFileError`` when a certificate or key file cannot be read or used.
    public func application(tls: TLSFiles? = nil, onServerRunning: @escaping ServerRunning = { _ in }) throws -> some ApplicationProtocol {
        let connections = self.connections
        var server = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [ConnectionWatcher(connections: connections)]))
        if let tls {
            let tlsConfiguration = try tls.configuration()
            do {
                server = try .tls(server, tlsConfiguration: tlsConfiguration)
            } catch {
                throw TLSFileError(file: tls.certificate, message: "cannot be used with its key (\(error))")
            }
        }
        return Application(
            router: router(), server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "seer"),
            onServerRunning: onServerRunning, logger: logger)
    }
}
