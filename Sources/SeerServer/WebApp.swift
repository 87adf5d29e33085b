import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SeerCrypto

/// The web app served under `/app/`: plain HTML, CSS and JavaScript modules (`WebApp/`), embedded in
/// the binary. It is a client of the API like any other: it holds the keys a person signs in with
/// (in the tab's session storage) and sends them in the `Authorization` header.
///
/// Every answer carries a strict Content-Security-Policy (scripts, styles and everything else from
/// this origin only; no inline script or style, no plug-ins, no framing), `nosniff`, and no referrer.
/// The files are revalidated on each use (`no-cache` with a strong ETag), so a new binary's app is
/// picked up at once and an unchanged one costs a 304.
public enum WebApp {
    /// One file of the app.
    public struct Asset: Sendable {
        /// Its name under `/app/`.
        public var name: String
        /// Its Content-Type.
        public var contentType: String
        /// Its bytes.
        public var bytes: [UInt8]
        /// Its ETag: a hash of the bytes, quoted.
        public var etag: String

        init(_ name: String, _ contentType: String, _ bytes: [UInt8]) {
            self.name = name
            self.contentType = contentType
            self.bytes = bytes
            etag = "\"" + SHA256.hash(data: bytes).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
        }
    }

    static let javaScript = "text/javascript; charset=utf-8"

    /// Every file, by name; `index.html` is also the answer for `/app/`.
    public static let assets: [String: Asset] = {
        let list = [
            Asset("index.html", "text/html; charset=utf-8", PackageResources.index_html),
            Asset("app.css", "text/css; charset=utf-8", PackageResources.app_css),
            Asset("icon.svg", "image/svg+xml", PackageResources.icon_svg),
            Asset("app.js", javaScript, PackageResources.app_js),
            Asset("api.js", javaScript, PackageResources.api_js),
            Asset("camera.js", javaScript, PackageResources.camera_js),
            Asset("charger.js", javaScript, PackageResources.charger_js),
            Asset("dom.js", javaScript, PackageResources.dom_js),
            Asset("history.js", javaScript, PackageResources.history_js),
            Asset("plates.js", javaScript, PackageResources.plates_js),
            Asset("scan.js", javaScript, PackageResources.scan_js),
            Asset("settings.js", javaScript, PackageResources.settings_js),
            Asset("words.js", javaScript, PackageResources.words_js),
        ]
        return Dictionary(uniqueKeysWithValues: list.map { ($0.name, $0) })
    }()

    /// The policy: nothing but this origin's own files; photos shown from `blob:` URLs the app makes.
    public static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob:; media-src 'self' blob:; "
        + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// Headers every answer under `/app/` carries.
    static let securityHeaders: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!: contentSecurityPolicy,
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        HTTPField.Name("Permissions-Policy")!: "camera=(self), microphone=(), geolocation=()",
        HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
    ]

    /// The answer for one file: 200 with it, or 304 when the client's copy is current.
    static func response(_ asset: Asset, request: Request) -> Response {
        var headers = securityHeaders
        headers[.cacheControl] = "no-cache"
        headers[.eTag] = asset.etag
        let known = request.headers[.ifNoneMatch]?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        if known.contains(asset.etag) || known.contains("*") {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    static func redirect(to location: String) -> Response {
        var headers = securityHeaders
        headers[.location] = location
        headers[.cacheControl] = "no-cache"
        return Response(status: .found, headers: headers)
    }

    /// Adds `/` and `/app` (redirects to `/app/`), `/app/` and `/app/{file}`. None needs a key: the
    /// files hold no data, and every call the app makes goes through the API's own checks.
    static func register(on router: Router<SeerRequestContext>) {
        router.get("/") { _, _ in redirect(to: "/app/") }
        router.get("/app") { request, _ -> Response in
            // The router takes `/app` and `/app/` alike; the app's relative links need the slash.
            if !request.uri.path.hasSuffix("/") { return redirect(to: "/app/") }
            return response(assets["index.html"]!, request: request)
        }
        router.get("/app/{file}") { request, context -> Response in
            let name = context.parameters.get("file") ?? ""
            guard let asset = assets[name] else {
                throw APIError(.notFound, "notFound", "The app has no file '\(name)'.")
            }
            return response(asset, request: request)
        }
    }

    /// Links to the app that sign in with `keys` (role and key, e.g. the demo's device and user
    /// keys), for a server listening on `host` and `port` (over HTTPS when `secure`). The keys ride in the fragment
    /// (`#device=…&user=…`), which a browser never sends: the app moves them to the tab's session
    /// storage and removes them from the address bar. A server listening on every address gets one
    /// link per IPv4 address of the machine (loopback first), for a phone on the same network.
    public static func links(host: String, port: Int, keys: [(role: String, key: String)], secure: Bool = false) -> [String] {
        let safe = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.~"))
        let fragment = keys.map { "\($0.role)=\($0.key.addingPercentEncoding(withAllowedCharacters: safe) ?? "")" }.joined(separator: "&")
        var hosts = [host]
        if host == "0.0.0.0" || host == "::" {
            let found = (try? System.enumerateDevices()) ?? []
            let addresses = found.compactMap { device -> String? in
                guard let address = device.address, address.protocol == .inet, let ip = address.ipAddress else { return nil }
                return ip
            }
            hosts = ["127.0.0.1"] + Set(addresses).subtracting(["127.0.0.1"]).sorted()
        }
        return hosts.map { host in
            let shown = host.contains(":") ? "[\(host)]" : host
            return "\(secure ? "https" : "http")://\(shown):\(port)/app/#\(fragment)"
        }
    }
}
