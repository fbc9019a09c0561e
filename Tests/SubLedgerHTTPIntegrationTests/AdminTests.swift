import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SubLedgerHTTP
import SubLedgerUseCases
import Testing

/// The admin reports over HTTP and the admin page, behind an admin key.
@Suite struct AdminTests {
    typealias H = ServiceHarness

    @Test func reportsNeedAnAdminKeyAndAnswerJSONOrCSV() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let signed = try harness.signedTransaction(id: "7000", purchasedOnDay: 0, expiresOnDay: 30)
            _ = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "erin", "signed_transaction": signed])
            try await harness.projectReports()

            let forbidden = try await client.call(.get, "/v1/admin/reports/summary", key: harness.keyOne)
            #expect(forbidden.status == .forbidden)
            #expect(forbidden.json.errorCode == "wrong_key_scope")

            let summary = try await client.call(.get, "/v1/admin/reports/summary?app=\(H.appOne)", key: admin)
            #expect(summary.status == .ok)
            // The projector caught up: the report is as of the service's now, with nothing pending.
            #expect(summary.json["as_of"] is String)
            #expect(summary.json["pending_changes"] as? Int == 0)
            let products = summary.json["products"] as? [[String: Any]] ?? []
            #expect(products.contains { $0["product_id"] as? String == "pro.monthly" })

            let timeline = try await client.call(.get, "/v1/admin/reports/account/erin", key: admin)
            #expect(timeline.status == .ok)

            var headers: HTTPFields = [.authorization: "Bearer \(admin)"]
            headers[.accept] = "text/csv"
            let csv = try await client.executeRequest(
                uri: "/v1/admin/reports/summary?format=csv", method: .get, headers: headers, body: nil)
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(String(buffer: csv.body).contains("pro.monthly"))

            let unknown = try await client.call(.get, "/v1/admin/reports/nonsense", key: admin)
            #expect(unknown.status == .notFound)
            #expect(unknown.json.errorCode == "unknown_report")
            let badArgument = try await client.call(.get, "/v1/admin/reports/summary?bogus=1", key: admin)
            #expect(badArgument.status == .badRequest)
        }
    }

    @Test func adminPageRendersChartsAndSearchBehindBasicAuthentication() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let anonymous = try await client.executeRequest(uri: "/admin", method: .get, headers: [:], body: nil)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)

            let basic = "Basic " + Data("ops:\(admin)".utf8).base64EncodedString()
            let page = try await client.executeRequest(
                uri: "/admin?q=%3Cscript%3Ealert(1)%3C/script%3E", method: .get, headers: [.authorization: basic],
                body: nil)
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("<svg"))
            #expect(html.contains("<form"))
            #expect(!html.contains("<script>alert(1)</script>"))
            #expect(html.contains("&lt;script&gt;"))
        }
    }

    @Test func revenueChartsLiveOnTheirOwnPageBehindTheSameAuthentication() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let anonymous = try await client.executeRequest(
                uri: "/admin/revenue", method: .get, headers: [:], body: nil)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            let appKey = try await client.executeRequest(
                uri: "/admin/revenue", method: .get, headers: [.authorization: "Bearer \(harness.keyOne)"], body: nil)
            #expect(appKey.status == .forbidden)

            let basic: HTTPFields = [.authorization: "Basic " + Data("ops:\(admin)".utf8).base64EncodedString()]
            let dashboard = String(
                buffer: try await client.executeRequest(uri: "/admin", method: .get, headers: basic, body: nil).body)
            #expect(dashboard.contains("href=\"/admin/revenue\""))
            #expect(!dashboard.contains("class=\"revenue\""))
            #expect(!dashboard.contains("MRR"))

            let page = try await client.executeRequest(uri: "/admin/revenue", method: .get, headers: basic, body: nil)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: page.body).contains("class=\"revenue\""))
            let ranged = try await client.executeRequest(
                uri: "/admin/revenue?from=2025-01-01&to=2025-07-01&currency=USD", method: .get, headers: basic,
                body: nil)
            #expect(ranged.status == .ok)
            #expect(String(buffer: ranged.body).contains("value=\"2025-01-01\""))

            for garbage in [
                "from=yesterday", "to=2025-13-45", "from=2025-07-01&to=2025-01-01", "currency=usd", "currency=%3Cb%3E",
            ] {
                let refused = try await client.call(.get, "/admin/revenue?\(garbage)", key: admin)
                #expect(refused.status == .badRequest, "\(garbage)")
                #expect(refused.json.errorCode == "invalid_argument", "\(garbage)")
            }
            // A parameter the page does not take is refused as on every route (`RouteQueryParameters`).
            let unknown = try await client.call(.get, "/admin/revenue?bogus=1", key: admin)
            #expect(unknown.status == .badRequest)
            #expect(unknown.json.errorCode == "unknown_parameter")
        }
    }
}
