import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// Key scopes over HTTP (each scope on a route of each class: allowed answers 2xx, refused 403 `wrong_key_scope`),
/// the admin page per role, and the audit log of what admin and support keys do.
@Suite struct RolesAndAuditTests {
    typealias H = ServiceHarness

    /// The operator keys of a test, one per scope.
    struct OperatorKeys {
        var admin: String
        var support: String
        var reports: String
        var supportID: String
    }

    static func operatorKeys(_ harness: H) async throws -> OperatorKeys {
        let support = try await harness.keys.create(scope: .support, name: "helpdesk")
        return OperatorKeys(
            admin: try await harness.keys.create(scope: .admin, name: "ops").secret, support: support.secret,
            reports: try await harness.keys.create(scope: .reports, name: "finance").secret,
            supportID: support.keyID)
    }

    /// An account with one subscription, so that lookups and reports have something to answer.
    static func seedAccount(_ harness: H, _ client: any TestClientProtocol) async throws {
        let signed = try harness.signedTransaction(id: "7100", purchasedOnDay: 0, expiresOnDay: 30)
        let posted = try await client.call(
            .post, "/v1/transactions", key: harness.keyOne, json: ["account_id": "erin", "signed_transaction": signed])
        #expect(posted.status == .ok)
        try await harness.projectReports()
    }

    @Test func eachScopeCallsTheRoutesOfItsRoleAndIsRefusedTheOthersWith403() async throws {
        try await H.run { harness, client in
            let keys = try await Self.operatorKeys(harness)
            try await Self.seedAccount(harness, client)
            let lookup = "/v1/admin/lookup/account/erin?bundle_id=\(H.appOne)"
            // (method, route, body, the scopes answered 2xx); every other scope is refused with 403.
            let cases: [(HTTPRequest.Method, String, [String: String]?, Set<String>)] = [
                (.get, "/v1/admin/reports/summary", nil, ["admin", "reports"]),
                (.get, "/admin/revenue", nil, ["admin", "reports"]),
                (.get, lookup, nil, ["admin", "support"]),
                (.get, "/v1/admin/webhooks", nil, ["admin"]),
                (.get, "/v1/admin/audit", nil, ["admin"]),
                (.get, "/admin/audit", nil, ["admin"]),
                (.get, "/admin", nil, ["admin", "support", "reports"]),
                (.get, "/v1/accounts/erin/subscriptions", nil, ["app"]),
                // A change: refused before the body is read, for every scope but admin.
                (.post, "/v1/admin/webhooks", ["bundle_id": "com.example.none", "url": "https://example.com/"], []),
            ]
            let byScope = [
                "admin": keys.admin, "support": keys.support, "reports": keys.reports, "app": harness.keyOne,
            ]
            for (method, route, body, allowed) in cases {
                for (scope, key) in byScope.sorted(by: { $0.key < $1.key }) {
                    let answer = try await client.call(method, route, key: key, json: body)
                    if allowed.contains(scope) {
                        #expect(answer.status.kind == .successful, "\(scope) \(method) \(route): \(answer.status)")
                    } else if method == .post && scope == "admin" {
                        // Through to the route, which refuses the body (an unknown app) on its own terms.
                        #expect(answer.status.kind == .clientError, "\(scope) \(method) \(route)")
                        #expect(answer.status != .forbidden, "\(scope) \(method) \(route)")
                    } else {
                        #expect(answer.status == .forbidden, "\(scope) \(method) \(route): \(answer.status)")
                        #expect(answer.json.errorCode == "wrong_key_scope", "\(scope) \(method) \(route)")
                    }
                }
            }
        }
    }

    /// A store's own lookup (`/v1/admin/lookup/{store}/{id}`) is a customer lookup as every other: support's key
    /// reaches it (a 404 for an id no purchase names, not a 403), a reports key does not.
    @Test func supportLooksUpByEveryStoresOwnIDs() async throws {
        try await H.run(stores: EveryStore.besideTheAppStore) { harness, client in
            let keys = try await Self.operatorKeys(harness)
            let routes = [
                "/v1/admin/lookup/stripe/cus_none?bundle_id=\(H.appOne)",
                "/v1/admin/lookup/paddle/ctm_none?bundle_id=\(H.appOne)",
            ]
            for route in routes {
                let support = try await client.call(.get, route, key: keys.support)
                #expect(support.status == .notFound, "\(route): \(support.json)")
                #expect(
                    ["stripe_id_not_found", "store_id_not_found"].contains(support.json.errorCode ?? ""),
                    "\(route): \(support.json)")
                let reports = try await client.call(.get, route, key: keys.reports)
                #expect(reports.status == .forbidden, "\(route)")
            }
            // A id of another store's shape is refused by the route's store.
            let wrong = try await client.call(
                .get, "/v1/admin/lookup/paddle/cus_none?bundle_id=\(H.appOne)", key: keys.support)
            #expect(wrong.status == .badRequest)
            #expect(wrong.json.errorCode == "invalid_store_id")
        }
    }

    @Test func theAdminPageShowsEachRoleItsPartsAndRefusesTheRestByURL() async throws {
        try await H.run { harness, client in
            let keys = try await Self.operatorKeys(harness)
            try await Self.seedAccount(harness, client)
            func page(_ uri: String, _ key: String) async throws -> (status: HTTPResponse.Status, html: String) {
                let basic = "Basic " + Data("someone:\(key)".utf8).base64EncodedString()
                let response = try await client.executeRequest(
                    uri: uri, method: .get, headers: [.authorization: basic], body: nil)
                return (response.status, String(buffer: response.body))
            }
            let admin = try await page("/admin", keys.admin)
            #expect(admin.status == .ok)
            for part in [
                "<svg", "role=\"search\"", "href=\"/admin/revenue\"", "href=\"/admin/audit\"", "<h2>Webhooks</h2>",
            ] {
                #expect(admin.html.contains(part), "admin: \(part)")
            }

            let reports = try await page("/admin", keys.reports)
            #expect(reports.status == .ok)
            #expect(reports.html.contains("<svg"))
            #expect(reports.html.contains("href=\"/admin/revenue\""))
            for hidden in ["role=\"search\"", "href=\"/admin/audit\"", "<h2>Webhooks</h2>", "Writes to the stores"] {
                #expect(!reports.html.contains(hidden), "reports: \(hidden)")
            }

            let support = try await page("/admin", keys.support)
            #expect(support.status == .ok)
            #expect(support.html.contains("role=\"search\""))
            for hidden in ["<svg", "href=\"/admin/revenue\"", "href=\"/admin/audit\"", "<h2>Webhooks</h2>"] {
                #expect(!support.html.contains(hidden), "support: \(hidden)")
            }
            let found = try await page("/admin?q=erin", keys.support)
            #expect(found.status == .ok)
            #expect(found.html.contains("<code>erin</code>"))

            // What is hidden is refused too when asked for directly.
            #expect(try await page("/admin?q=erin", keys.reports).status == .forbidden)
            #expect(try await page("/admin/revenue", keys.support).status == .forbidden)
            #expect(try await page("/admin/audit", keys.support).status == .forbidden)
            #expect(try await page("/admin/audit", keys.reports).status == .forbidden)
            #expect(try await page("/admin", harness.keyOne).status == .forbidden)
        }
    }

    @Test func whatASupportKeyDoesIsInTheAuditLogWithWhoWhatWhenAndWhere() async throws {
        try await H.run { harness, client in
            let keys = try await Self.operatorKeys(harness)
            try await Self.seedAccount(harness, client)
            harness.clock.set(H.day(3))
            let read = try await client.call(
                .get, "/v1/admin/lookup/account/erin?bundle_id=\(H.appOne)", key: keys.support)
            #expect(read.status == .ok)
            harness.clock.set(H.day(4))
            let refused = try await client.call(
                .post, "/v1/admin/webhooks/\(UUID().uuidString.lowercased())/pause", key: keys.support)
            #expect(refused.status == .forbidden)
            // Reads of reports, and anything an app or reports key does, are not recorded.
            _ = try await client.call(.get, "/v1/admin/reports/summary", key: keys.admin)
            _ = try await client.call(.get, "/v1/admin/reports/summary", key: keys.reports)
            _ = try await client.call(.get, "/v1/accounts/erin/subscriptions", key: harness.keyOne)

            let listed = try await client.call(.get, "/v1/admin/audit", key: keys.admin)
            #expect(listed.status == .ok)
            let entries = try #require(listed.json["entries"] as? [[String: Any]])
            #expect(entries.count == 2)
            #expect(listed.json["next_before"] is NSNull)
            // Newest first.
            let pause = try #require(entries.first)
            #expect(pause["method"] as? String == "POST")
            #expect(pause["route"] as? String == "/v1/admin/webhooks/{id}/pause")
            #expect(pause["status"] as? Int == 403)
            #expect(pause["occurred_at"] as? String == "2025-01-05T00:00:00.000Z")
            let lookup = try #require(entries.last)
            #expect(lookup["key_id"] as? String == keys.supportID)
            #expect(lookup["key_name"] as? String == "helpdesk")
            #expect(lookup["scope"] as? String == "support")
            #expect(lookup["method"] as? String == "GET")
            #expect(lookup["route"] as? String == "/v1/admin/lookup/account/{id}")
            #expect(lookup["target"] as? [String: String] == ["id": "erin", "bundle_id": H.appOne])
            #expect(lookup["status"] as? Int == 200)
            #expect(lookup["occurred_at"] as? String == "2025-01-04T00:00:00.000Z")
            #expect(lookup["client_address"] as? String == "127.0.0.1")
            #expect((lookup["request_id"] as? String)?.isEmpty == false)

            // Pages are bounded and follow each other.
            let first = try await client.call(.get, "/v1/admin/audit?limit=1&key=helpdesk", key: keys.admin)
            #expect((first.json["entries"] as? [[String: Any]])?.count == 1)
            let next = try #require(first.json["next_before"] as? Int)
            let second = try await client.call(.get, "/v1/admin/audit?limit=1&before=\(next)", key: keys.admin)
            #expect(
                (second.json["entries"] as? [[String: Any]])?.first?["route"] as? String == lookup["route"] as? String)
            let later = try await client.call(.get, "/v1/admin/audit?since=2025-01-04T12:00:00Z", key: keys.admin)
            #expect((later.json["entries"] as? [[String: Any]])?.count == 1)
            for bad in ["limit=501", "limit=0", "before=-1", "since=yesterday", "bogus=1"] {
                let answer = try await client.call(.get, "/v1/admin/audit?\(bad)", key: keys.admin)
                #expect(answer.status == .badRequest, "\(bad)")
            }

            // Append-only in the database itself.
            for statement: PostgresQuery in [
                "UPDATE audit_log SET status = 200", "DELETE FROM audit_log", "TRUNCATE audit_log",
            ] {
                await #expect {
                    _ = try await harness.pool.query(statement)
                } throws: { ($0 as? PostgresError)?.sqlState == .restrictViolation }
            }
            let kept = try await AuditLogStore(pool: harness.pool).entries(.init(limit: 10))
            #expect(kept.count == 2)
            #expect(kept.first?.status == 403)
        }
    }

    /// The admin page's search reads a customer's data as a lookup does: it is recorded, with what was searched
    /// for (the page itself, searching nothing, is not). A grant and a merge name their app in their JSON body:
    /// their entries carry that `bundle_id`, refused ones included, as a lookup's carries the one of its query.
    @Test func theAdminSearchIsAuditedAndGrantAndMergeEntriesNameTheirApp() async throws {
        try await H.run { harness, client in
            let keys = try await Self.operatorKeys(harness)
            try await Self.seedAccount(harness, client)
            func page(_ uri: String, _ key: String) async throws -> HTTPResponse.Status {
                let basic = "Basic " + Data("someone:\(key)".utf8).base64EncodedString()
                return try await client.executeRequest(
                    uri: uri, method: .get, headers: [.authorization: basic], body: nil
                ).status
            }
            #expect(try await page("/admin", keys.admin) == .ok)
            #expect(try await page("/admin?q=", keys.support) == .ok)
            #expect(try await page("/admin?q=erin", keys.support) == .ok)
            #expect(try await page("/admin?q=%207100%20", keys.admin) == .ok)
            let granted = try await GrantTests.send(
                client, .post, "/v1/accounts/erin/grants", key: keys.support,
                ["bundle_id": H.appOne, "entitlement_id": "pro", "duration": "10d", "reason": "goodwill"])
            #expect(granted.status == .created)
            let merged = try await AccountMergeTests.merge(client, into: "erin", from: "anon-e", key: keys.support)
            #expect(merged.status == .ok)
            let refused = try await AccountMergeTests.merge(client, into: "erin", from: "erin", key: keys.support)
            #expect(refused.status == .unprocessableContent)

            // Oldest first: method, route, status and the target's fields in name order.
            let entries = try await AuditLogStore(pool: harness.pool).entries(.init(limit: 10)).reversed().map {
                let target = $0.target.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                return "\($0.method) \($0.route) \($0.status) " + target.joined(separator: " ")
            }
            let app = H.appOne
            #expect(
                entries == [
                    "GET /admin 200 q=erin",
                    "GET /admin 200 q=7100",
                    "POST /v1/accounts/{account_id}/grants 201 account_id=erin bundle_id=\(app)",
                    "POST /v1/accounts/{account_id}/merge 200 account_id=erin bundle_id=\(app)",
                    "POST /v1/accounts/{account_id}/merge 422 account_id=erin bundle_id=\(app)",
                ])
            let support = try await AuditLogStore(pool: harness.pool).entries(.init(key: "helpdesk", limit: 10))
            #expect(support.count == 4)
        }
    }
}
