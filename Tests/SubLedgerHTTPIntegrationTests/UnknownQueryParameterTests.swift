import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import SubLedgerHTTP

/// Every route refuses a query parameter it does not take with 400 `unknown_parameter` (`RouteQueryParameters`),
/// reads as well as admin routes, and still answers its documented parameters.
@Suite struct UnknownQueryParameterTests {
    typealias H = ServiceHarness

    /// `?bogus=1` on a read, answered on the event loop or by the router alike, on the open routes too.
    @Test(arguments: [true, false])
    func aReadWithAnUnknownParameterIsRefused(onEventLoops: Bool) async throws {
        try await H.run(entitlementReadsOnEventLoops: onEventLoops) { harness, client in
            for path in [
                "/v1/accounts/alice/entitlements?bogus=1",
                "/v1/accounts/alice/entitlements?at=0&bogus=1",
                "/v1/accounts/alice/subscriptions?bogus=1",
                "/v1/accounts/alice/transactions?bogus=1",
                "/health/live?bogus=1",
                "/openapi.yaml?bogus=1",
            ] {
                let answer = try await client.call(.get, path, key: harness.keyOne)
                #expect(answer.status == .badRequest, "\(path)")
                #expect(answer.json.errorCode == "unknown_parameter", "\(path)")
                let message = (answer.json["error"] as? [String: Any])?["message"] as? String
                #expect(message?.contains("'bogus'") == true, "\(path): \(message ?? "")")
            }
            // The key is checked first: without one the answer is 401 whatever the query holds.
            let unkeyed = try await client.call(.get, "/v1/accounts/alice/entitlements?bogus=1", key: nil)
            #expect(unkeyed.status == .unauthorized)
        }
    }

    /// Each read with the parameters it documents, and with none, is answered 200.
    @Test(arguments: [true, false])
    func aReadWithItsDocumentedParametersAnswers200(onEventLoops: Bool) async throws {
        try await H.run(entitlementReadsOnEventLoops: onEventLoops) { harness, client in
            let admin = try await harness.keys.create(scope: .admin, name: "admin").secret
            let app = ServiceHarness.appOne
            let reads: [(path: String, key: String)] = [
                ("/v1/accounts/alice/entitlements", harness.keyOne),
                ("/v1/accounts/alice/entitlements?at=1700000000000", harness.keyOne),
                ("/v1/accounts/alice/entitlements?at=2026-01-31T00:00:00Z", harness.keyOne),
                ("/v1/accounts/alice/subscriptions", harness.keyOne),
                ("/v1/accounts/alice/transactions", harness.keyOne),
                ("/v1/accounts/alice/grants?bundle_id=\(app)", admin),
                ("/v1/accounts/alice/aliases?bundle_id=\(app)", admin),
                ("/v1/admin/reports/summary?format=json&app=\(app)&environment=Production", admin),
                ("/v1/admin/reports/churn?from=2026-01-01&to=2026-02-01", admin),
                ("/v1/admin/webhooks?bundle_id=\(app)&include_removed=true", admin),
                ("/v1/admin/audit?limit=5&since=2026-01-01T00:00:00Z", admin),
                ("/admin?q=", admin),
                ("/admin/revenue?from=2026-01-01&to=2026-02-01", admin),
            ]
            for read in reads {
                let answer = try await client.call(.get, read.path, key: read.key)
                #expect(answer.status == .ok, "\(read.path): \(answer.json)")
            }
        }
    }

    /// A report's option that no report takes is unknown to the route; one that another report takes is refused by
    /// the report, as the `report` command refuses it.
    @Test func aReportOptionIsUnknownOnlyWhenNoReportTakesIt() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(scope: .admin, name: "admin").secret
            let unknown = try await client.call(.get, "/v1/admin/reports/summary?colour=red", key: admin)
            #expect(unknown.status == .badRequest)
            #expect(unknown.json.errorCode == "unknown_parameter")
            let otherReports = try await client.call(.get, "/v1/admin/reports/summary?limit=5", key: admin)
            #expect(otherReports.status == .badRequest)
            #expect(otherReports.json.errorCode == "invalid_argument")
        }
    }
}
