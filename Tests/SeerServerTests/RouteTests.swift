import Foundation
import Hummingbird
import HummingbirdTesting
import Seer
import SeerCodegen
import SeerTestSupport
import Testing

@testable import SeerServer

@Suite("seer serve: routes, against a real SQLite file")
struct RouteTests {
    @Test("health, metrics and the document need no key")
    func openRoutes() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let health = try await client.send(.get, "/health")
            #expect(health.status == 200)
            #expect(health.object["status"] as? String == "ok")
            let document = try await client.send(.get, "/openapi.json")
            #expect((document.object["openapi"] as? String)?.hasPrefix("3.1") == true)
            // A symbol's `format` lists exactly the symbologies the engine reads.
            let schemas = (document.object["components"] as? [String: Any])?["schemas"] as? [String: Any]
            let format = ((schemas?["Symbol"] as? [String: Any])?["properties"] as? [String: Any])?["format"] as? [String: Any]
            #expect(Set(format?["enum"] as? [String] ?? []) == Set(Symbology.allCases.map(\.rawValue)))
            _ = try await client.send(
                .post, "/v1/scans", path: "/v1/scans?device=phone-1", key: harness.device, contentType: "image/png",
                body: try Photos.bytes("TestImages/products/authentic-link.png"))
            let metrics = try await client.send(.get, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains(#"seer_http_requests_total{method="POST",route="/v1/scans",status="200"} 1"#))
            #expect(metrics.text.contains(#"seer_recognitions_total{outcome="ok"} 1"#))
            #expect(metrics.text.contains("seer_queue_depth 0"))
            #expect(metrics.text.contains(#"seer_http_request_duration_seconds_count{route="/v1/scans"} 1"#))
        }
    }

    @Test("a medicine pack's GS1 DataMatrix is read, parsed into its AIs, verified, saved and found by search")
    func medicinePack() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let scan = try await client.send(
                .post, "/v1/scans", key: harness.device, contentType: "image/png",
                body: try Photos.bytes("TestImages/products/medicine-pack.png"))
            #expect(scan.status == 200)
            let symbols = scan.object["symbols"] as? [[String: Any]] ?? []
            #expect(symbols.map { $0["format"] as? String } == ["datamatrix"])
            #expect(symbols.first?["gs1"] as? Bool == true)
            let verification = symbols.first?["verification"] as? [String: Any]
            #expect(verification?["verdict"] as? String == "authentic")
            #expect(verification?["gtin"] as? String == "09506000134390")
            #expect(verification?["serial"] as? String == "M1001")
            #expect(verification?["lot"] as? String == "B2417")
            #expect(verification?["expiry"] as? String == "281130")
            #expect(verification?["symbology"] as? String == "datamatrix")
            let page = try await client.send(.get, "/v1/scans", path: "/v1/scans?search=ibuprofen", key: harness.device)
            let scans = page.object["scans"] as? [[String: Any]] ?? []
            #expect(scans.map { $0["serial"] as? String } == ["M1001"])
            #expect(scans.first?["symbology"] as? String == "datamatrix")
        }
    }

    @Test("a photo is read, verified, answered as the CLI's JSON and saved to the device's history")
    func scanAndHistory() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let scan = try await client.send(
                .post, "/v1/scans", path: "/v1/scans?lat=52.52&lon=13.40", key: harness.device, contentType: "image/png",
                body: try Photos.bytes("TestImages/products/authentic-link.png"))
            #expect(scan.status == 200)
            let symbols = scan.object["symbols"] as? [[String: Any]] ?? []
            #expect(symbols.count == 1)
            #expect(symbols.first?["format"] as? String == "qr")
            let verification = symbols.first?["verification"] as? [String: Any]
            #expect(verification?["verdict"] as? String == "authentic")
            let scanID = try #require(verification?["scanID"] as? Int)
            #expect(scan.object["file"] as? String == "upload")
            // Timings only when asked for, as `seer scan --timing`.
            #expect(scan.object["milliseconds"] == nil)
            // The body is the CLI's model: decoding it as ScanReport works.
            let report = try JSONDecoder().decode(ScanReport.self, from: Data(scan.body))
            #expect(report.symbols.first?.verification?.verdict == .authentic)

            let page = try await client.send(.get, "/v1/scans", key: harness.device)
            #expect(page.status == 200)
            let scans = page.object["scans"] as? [[String: Any]] ?? []
            #expect(scans.count == 1)
            #expect(scans.first?["device"] as? String == "phone-1")
            #expect(scans.first?["latitude"] as? Double == 52.52)
            // Another device sees none of it.
            let other = try await client.send(.get, "/v1/scans", key: harness.otherDevice)
            #expect((other.object["scans"] as? [Any])?.count == 0)
            let hidden = try await client.send(.get, "/v1/scans/{id}", path: "/v1/scans/\(scanID)", key: harness.otherDevice)
            #expect(hidden.status == 404)
            // The admin sees every device's scans.
            let all = try await client.send(.get, "/v1/scans", path: "/v1/scans?result=success&page=1&limit=10", key: harness.admin)
            #expect((all.object["scans"] as? [Any])?.count == 1)

            let details = try await client.send(.get, "/v1/scans/{id}", path: "/v1/scans/\(scanID)", key: harness.device)
            #expect(details.status == 200)
            #expect(details.object["id"] as? Int == scanID)
            let missing = try await client.send(.get, "/v1/scans/{id}", path: "/v1/scans/999999", key: harness.device)
            #expect(missing.status == 404)
            #expect(missing.errorCode == "notFound")
            let notANumber = try await client.send(.get, "/v1/scans/{id}", path: "/v1/scans/abc", key: harness.device)
            #expect(notANumber.status == 400)

            let reported = try await client.json(
                .post, "/v1/scans/{id}/report", path: "/v1/scans/\(scanID)/report", key: harness.device, ["reason": "Label peels off"])
            #expect(reported.status == 201)
            #expect(reported.object["reason"] as? String == "Label peels off")
            let bare = try await client.send(.post, "/v1/scans/{id}/report", path: "/v1/scans/\(scanID)/report", key: harness.device)
            #expect(bare.status == 201)
            let afterReport = try await client.send(.get, "/v1/scans/{id}", path: "/v1/scans/\(scanID)", key: harness.device)
            #expect((afterReport.object["reports"] as? [Any])?.count == 2)

            let stats = try await client.send(.get, "/v1/stats", key: harness.device)
            #expect(stats.status == 200)
            #expect(stats.object["total"] as? Int == 1)
            #expect(stats.object["reported"] as? Int == 1)
            let otherStats = try await client.send(.get, "/v1/stats", path: "/v1/stats?period=week", key: harness.otherDevice)
            #expect(otherStats.object["total"] as? Int == 0)

            let searched = try await client.send(.get, "/v1/scans", path: "/v1/scans?search=Radiance", key: harness.device)
            #expect((searched.object["scans"] as? [Any])?.count == 1)
            let recent = try await client.send(.get, "/v1/searches/recent", key: harness.device)
            #expect(recent.object["searches"] as? [String] == ["Radiance"])
            let suggested = try await client.send(.get, "/v1/suggest", path: "/v1/suggest?q=radi", key: harness.device)
            #expect(suggested.status == 200)
            #expect((suggested.object["suggestions"] as? [String] ?? []).contains { $0.lowercased().hasPrefix("radi") })
            let noPrefix = try await client.send(.get, "/v1/suggest", key: harness.device)
            #expect(noPrefix.status == 400)
        }
    }

    @Test("multipart uploads, modes, plates, and charger codes")
    func multipartAndChargers() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let boundary = "seer-test-boundary"
            var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n".utf8)
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"bay.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
            body += try Photos.bytes("TestImages/products/charger-available.png")
            body += Array("\r\n--\(boundary)--\r\n".utf8)
            let scan = try await client.send(
                .post, "/v1/scans", path: "/v1/scans?mode=batch&timing=true", key: harness.device, contentType: "multipart/form-data; boundary=\(boundary)",
                body: body)
            #expect(scan.status == 200)
            #expect(scan.object["file"] as? String == "bay.png")
            #expect(scan.object["milliseconds"] is Double)
            let charger = (scan.object["symbols"] as? [[String: Any]])?.first?["charger"] as? [String: Any]
            #expect(charger?["chargerID"] as? String == "100001")

            let plates = try await client.send(
                .post, "/v1/scans", path: "/v1/scans?read=codes,plates&region=eu", key: harness.device, contentType: "image/png",
                body: try Photos.bytes("TestImages/plates/uk.png"))
            #expect(plates.status == 200)
            let top = (plates.object["plates"] as? [[String: Any]])?.first
            #expect(top?["text"] as? String == "LN68XKT")

            let typed = try await client.send(.get, "/v1/chargers/{id}", path: "/v1/chargers/100001", key: harness.user)
            #expect(typed.status == 200)
            #expect(typed.object["chargerID"] as? String == "100001")
            let badID = try await client.send(.get, "/v1/chargers/{id}", path: "/v1/chargers/12", key: harness.device)
            #expect(badID.status == 422)
        }
    }

    @Test("payloads decoded on the phone are verified and saved")
    func verifyPayloads() async throws {
        let harness = try Harness()
        let payload = try #require(try VerifyDemo.codes().first { $0.file == "authentic-link.png" }?.payload)
        try await harness.test { client in
            let plain = try await client.send(.post, "/v1/verify", key: harness.device, contentType: "text/plain", body: Array((payload + "\n").utf8))
            #expect(plain.status == 200)
            #expect(plain.object["verdict"] as? String == "authentic")
            let json = try await client.json(.post, "/v1/verify", key: harness.device, ["payload": payload])
            #expect(json.status == 200)
            // The second scan of one serial is a repeat the verifier sees in the history.
            #expect(json.object["scanID"] as? Int != plain.object["scanID"] as? Int)
            let empty = try await client.send(.post, "/v1/verify", key: harness.device, contentType: "text/plain", body: Array("   ".utf8))
            #expect(empty.status == 422)
            #expect(empty.errorCode == "emptyPayload")
            let control = try await client.send(.post, "/v1/verify", key: harness.device, contentType: "text/plain", body: [0x41, 0x07, 0x42])
            #expect(control.errorCode == "controlCharacter")
            let long = try await client.send(
                .post, "/v1/verify", key: harness.device, contentType: "text/plain", body: Array(repeating: 0x41, count: 5000))
            #expect(long.status == 413)
            let page = try await client.send(.get, "/v1/scans", key: harness.device)
            #expect((page.object["scans"] as? [Any])?.count == 2)
        }
    }

    @Test("plates, messages, inbox and onboarding; no answer or log line carries an email")
    func platesAndMessages() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let resolved = try await client.json(.post, "/v1/plates/resolve", key: harness.user, ["plate": "ab12 cde", "country": "GB"])
            #expect(resolved.status == 200)
            #expect(resolved.object["status"] as? String == "resolved")
            #expect(resolved.object["recipient"] as? String == "rcp-7f3a9c")
            let nobody = try await client.json(.post, "/v1/plates/resolve", key: harness.user, ["plate": "ZZ99 ZZZ"])
            #expect(nobody.object["status"] as? String == "notRegistered")
            let badPlate = try await client.json(.post, "/v1/plates/resolve", key: harness.user, ["plate": "AB12😀CDE"])
            #expect(badPlate.status == 422)
            #expect(badPlate.errorCode == "emoji")
            let badCountry = try await client.json(.post, "/v1/plates/resolve", key: harness.user, ["plate": "AB12CDE", "country": "United Kingdom"])
            #expect(badCountry.errorCode == "invalidCountry")

            let sent = try await client.json(.post, "/v1/plates/{plate}/messages", path: "/v1/plates/AB12%20CDE/messages", key: harness.user, ["preset": "lights"])
            #expect(sent.status == 201)
            #expect(sent.object["status"] as? String == "delivered")
            let custom = try await client.json(.post, "/v1/plates/{plate}/messages", path: "/v1/plates/AB12CDE/messages", key: harness.admin, ["text": "Nice car."])
            #expect(custom.status == 201)
            let unknownPreset = try await client.json(.post, "/v1/plates/{plate}/messages", path: "/v1/plates/AB12CDE/messages", key: harness.user, ["preset": "party"])
            #expect(unknownPreset.errorCode == "unknownPreset")
            let unregistered = try await client.json(.post, "/v1/plates/{plate}/messages", path: "/v1/plates/ZZ99ZZZ/messages", key: harness.user, ["preset": "lights"])
            #expect(unregistered.status == 404)

            let inbox = try await client.send(.get, "/v1/inbox", key: harness.user)
            #expect(inbox.status == 200)
            let texts = (inbox.object["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            #expect(texts == ["Nice car.", "Your lights are on."])

            // A new user key: no owner yet, then onboarding binds it; its inbox is its own (empty).
            let made = try await client.json(.post, "/v1/apikeys", key: harness.admin, ["role": "user", "name": "sam"])
            let samKey = try #require(made.object["key"] as? String)
            let before = try await client.send(.get, "/v1/inbox", key: samKey)
            #expect(before.status == 403)
            #expect(before.errorCode == "noRecipient")
            let joined = try await client.json(
                .post, "/v1/users", key: samKey, ["name": "Sam Example", "email": "sam@example.com", "plate": "CD34 EFG", "country": "GB"])
            #expect(joined.status == 201)
            let recipient = try #require(joined.object["recipient"] as? String)
            #expect(joined.object["plate"] as? String == "CD34EFG")
            let again = try await client.json(
                .post, "/v1/users", key: samKey, ["name": "Sam Example", "email": "sam@example.com", "plate": "CD34 EFG", "country": "GB"])
            #expect(again.status == 409)
            let badEmail = try await client.json(
                .post, "/v1/users", key: harness.admin, ["name": "Kim", "email": "not-an-email", "plate": "CD35 EFG", "country": "GB"])
            #expect(badEmail.status == 422)
            let missing = try await client.json(.post, "/v1/users", key: harness.admin, ["name": "Kim"])
            #expect(missing.status == 400)
            #expect(missing.errorCode == "missingField")
            let toSam = try await client.json(.post, "/v1/plates/{plate}/messages", path: "/v1/plates/CD34EFG/messages", key: harness.user, ["preset": "tow"])
            #expect(toSam.status == 201)
            let samInbox = try await client.send(.get, "/v1/inbox", key: samKey)
            let samMessages = samInbox.object["messages"] as? [[String: Any]] ?? []
            #expect(samMessages.count == 1)
            #expect(samMessages.first?["recipient"] as? String == recipient)
            let alexInbox = try await client.send(.get, "/v1/inbox", key: harness.user)
            #expect((alexInbox.object["messages"] as? [Any])?.count == 2)
        }
        let logs = harness.logs.all
        #expect(logs.contains { $0.contains("route: /v1/users") || $0.contains("\"route\": /v1/users") || $0.contains("/v1/users") })
        #expect(!logs.contains { $0.contains("@example.com") })
        #expect(!logs.contains { $0.contains("seer_") })
    }

    @Test("the registry is imported by admins, all or nothing; keys are made, listed and revoked")
    func administration() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let registry: [String: Any] = ["chargers": [["id": "200001", "serial": "EVB-9000", "location": "Quay 1", "status": "Available"]]]
            let imported = try await client.json(.put, "/v1/registry", key: harness.admin, registry)
            #expect(imported.status == 200)
            #expect(imported.object["chargers"] as? Int == 1)
            let charger = try await client.send(.get, "/v1/chargers/{id}", path: "/v1/chargers/200001", key: harness.device)
            #expect(charger.object["location"] as? String == "Quay 1")
            let refused = try await client.json(.put, "/v1/registry", key: harness.admin, ["chargers": [["id": "200002", "colour": "red"]]])
            #expect(refused.status == 422)
            #expect(refused.errorCode == "importRefused")
            let notJSON = try await client.send(.put, "/v1/registry", key: harness.admin, contentType: "application/json", body: Array("{".utf8))
            #expect(notJSON.status == 422)
            let wrongType = try await client.send(.put, "/v1/registry", key: harness.admin, contentType: "text/csv", body: Array("a,b".utf8))
            #expect(wrongType.status == 415)

            let made = try await client.json(.post, "/v1/apikeys", key: harness.admin, ["role": "device", "name": "till-3"])
            #expect(made.status == 201)
            let key = try #require(made.object["key"] as? String)
            let id = try #require((made.object["info"] as? [String: Any])?["id"] as? String)
            let list = try await client.send(.get, "/v1/apikeys", key: harness.admin)
            let listed = list.object["keys"] as? [[String: Any]] ?? []
            #expect(listed.count == 5)
            #expect(!list.text.contains(key))
            #expect(try await client.send(.get, "/v1/stats", key: key).status == 200)
            let revoked = try await client.send(.delete, "/v1/apikeys/{id}", path: "/v1/apikeys/\(id)", key: harness.admin)
            #expect(revoked.status == 200)
            #expect(revoked.object["revokedAt"] != nil)
            let after = try await client.send(.get, "/v1/stats", key: key)
            #expect(after.status == 401)
            let unknown = try await client.send(.delete, "/v1/apikeys/{id}", path: "/v1/apikeys/nope", key: harness.admin)
            #expect(unknown.status == 404)
            let badRole = try await client.json(.post, "/v1/apikeys", key: harness.admin, ["role": "root"])
            #expect(badRole.status == 400)
        }
    }
}
