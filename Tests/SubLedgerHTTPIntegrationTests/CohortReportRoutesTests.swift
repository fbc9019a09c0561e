import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SubLedgerHTTP
import SubLedgerUseCases
import Testing

/// `trials` and `retention` over HTTP and on the admin page: the shared report route, its formats and its refusals.
@Suite struct CohortReportRoutesTests {
    typealias H = ServiceHarness

    @Test func cohortReportsAnswerJSONAndCSVAndRefuseBadArgumentsWith400() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let signed = try harness.signedTransaction(id: "7100", purchasedOnDay: 0, expiresOnDay: 30)
            _ = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "erin", "signed_transaction": signed])
            try await harness.projectReports()

            let retention = try await client.call(
                .get, "/v1/admin/reports/retention?app=\(H.appOne)&months=12", key: admin)
            #expect(retention.status == .ok)
            #expect(retention.json["months"] as? Int == 12)
            #expect(retention.json["cohorts"] is [Any])
            let trials = try await client.call(.get, "/v1/admin/reports/trials?cohort=week", key: admin)
            #expect(trials.status == .ok)
            #expect(trials.json["granularity"] as? String == "week")
            #expect((trials.json["cohorts"] as? [Any])?.count == 12)

            let csv = try await client.executeRequest(
                uri: "/v1/admin/reports/retention?format=csv", method: .get,
                headers: [.authorization: "Bearer \(admin)"], body: nil)
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(String(buffer: csv.body).hasPrefix("cohort,metric,subscribers,ltv,m0,"))

            for query in [
                "retention?months=0", "retention?months=61", "retention?currency=usd", "retention?cohort=week",
                "trials?cohort=day", "trials?months=3", "trials?from=2025-02-01&to=2025-01-01", "trials?to=tomorrow",
            ] {
                let refused = try await client.call(.get, "/v1/admin/reports/\(query)", key: admin)
                #expect(refused.status == .badRequest, "\(query)")
                #expect(refused.json.errorCode == "invalid_argument", "\(query)")
            }
            let forbidden = try await client.call(.get, "/v1/admin/reports/retention", key: harness.keyOne)
            #expect(forbidden.status == .forbidden)
        }
    }

    @Test func revenuePageShowsTheRetentionHeatmapAndTrialConversion() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let basic = "Basic " + Data("ops:\(admin)".utf8).base64EncodedString()
            let page = try await client.executeRequest(
                uri: "/admin/revenue", method: .get, headers: [.authorization: basic], body: nil)
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("Retention by first-payment month"))
            #expect(html.contains("Trial conversion per month"))
            // The operations page stays fast: the cohort charts are not on it.
            let operations = try await client.executeRequest(
                uri: "/admin", method: .get, headers: [.authorization: basic], body: nil)
            #expect(operations.status == .ok)
            #expect(!String(buffer: operations.body).contains("Retention by first-payment month"))
        }
    }
}
