import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import SeerServer

/// The web app's files under `/app/` (the flows themselves are tested in a browser: Tests/browser).
@Suite("Web app")
struct WebAppTests {
    func get(_ client: Client, _ path: String, headers: HTTPFields = [:]) async throws -> (status: Int, headers: HTTPFields, text: String) {
        let response = try await client.client.execute(uri: path, method: .get, headers: headers, body: nil)
        return (Int(response.status.code), response.headers, String(decoding: response.body.readableBytesView, as: UTF8.self))
    }

    @Test("every file is served with its type, a strict policy and an ETag; unknown files are 404")
    func files() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let csp = HTTPField.Name("Content-Security-Policy")!
            let page = try await get(client, "/app/")
            #expect(page.status == 200)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let policy = try #require(page.headers[csp])
            #expect(policy.contains("default-src 'self'"))
            #expect(policy.contains("script-src 'self';"))
            #expect(!policy.contains("unsafe"))
            #expect(page.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            // No inline script or style in the page: the policy would block it anyway.
            #expect(!page.text.contains("<script>") && !page.text.contains("style=") && !page.text.contains("<style"))

            // Every file the page and the modules refer to is served, with its type.
            var names: Set<String> = []
            for asset in WebApp.assets.values {
                let text = String(decoding: asset.bytes, as: UTF8.self)
                for match in text.matches(of: #/(?:src|href)="([a-z]+\.(?:js|css|svg))"|from "\./([a-z]+\.js)"/#) {
                    names.insert(String(match.output.1 ?? match.output.2 ?? ""))
                }
            }
            #expect(names.count >= 10)
            for name in names.sorted() {
                let file = try await get(client, "/app/\(name)")
                #expect(file.status == 200, "\(name)")
                #expect(file.headers[.contentType] == WebApp.assets[name]?.contentType, "\(name)")
                #expect(file.headers[csp] == WebApp.contentSecurityPolicy)
                #expect(file.headers[.cacheControl] == "no-cache")
            }
            #expect(try await get(client, "/app/app.js").headers[.contentType] == "text/javascript; charset=utf-8")

            let script = try await get(client, "/app/app.js")
            let etag = try #require(script.headers[.eTag])
            let again = try await get(client, "/app/app.js", headers: [.ifNoneMatch: etag])
            #expect(again.status == 304)
            #expect(again.text.isEmpty)
            #expect(try await get(client, "/app/app.js", headers: [.ifNoneMatch: "\"other\""]).status == 200)

            let missing = try await get(client, "/app/secrets.json")
            #expect(missing.status == 404)
            #expect(try await get(client, "/app/..%2Fopenapi.json").status == 404)
        }
    }

    @Test("/ and /app lead to /app/; the API still wants its keys")
    func redirects() async throws {
        let harness = try Harness()
        try await harness.test { client in
            for path in ["/", "/app"] {
                let answer = try await get(client, path)
                #expect(answer.status == 302, "\(path)")
                #expect(answer.headers[.location] == "/app/", "\(path)")
            }
            #expect(try await get(client, "/v1/stats").status == 401)
        }
    }

    @Test("the demo link carries the keys in the fragment; a wildcard address gets one link per address")
    func links() {
        let keys = [(role: "device", key: "seer_ab_c-d"), (role: "user", key: "seer_ef_g")]
        #expect(WebApp.links(host: "127.0.0.1", port: 8080, keys: keys) == ["http://127.0.0.1:8080/app/#device=seer_ab_c-d&user=seer_ef_g"])
        #expect(WebApp.links(host: "::1", port: 9, keys: keys).first?.hasPrefix("http://[::1]:9/app/#device=") == true)
        let all = WebApp.links(host: "0.0.0.0", port: 8080, keys: keys)
        #expect(all.first == "http://127.0.0.1:8080/app/#device=seer_ab_c-d&user=seer_ef_g")
        #expect(all.allSatisfy { $0.hasSuffix("/app/#device=seer_ab_c-d&user=seer_ef_g") && !$0.contains("0.0.0.0") })
    }
}
