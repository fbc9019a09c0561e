import AppStoreStore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// `GET /metrics` exports request, pool, Apple and ledger metrics in the Prometheus text format.
@Suite struct MetricsTests {
    typealias H = ServiceHarness

    static func scrape(_ client: some TestClientProtocol) async throws -> (
        status: HTTPResponse.Status, text: String, contentType: String?
    ) {
        let response = try await client.executeRequest(uri: "/metrics", method: .get, headers: [:], body: nil)
        return (response.status, String(buffer: response.body), response.headers[.contentType])
    }

    /// The value of the first sample line that starts with `prefix` and contains every one of `labels`.
    static func sample(_ text: String, _ prefix: String, _ labels: [String] = []) -> Double? {
        text.split(separator: "\n").lazy
            .filter { !$0.hasPrefix("#") && $0.hasPrefix(prefix) && labels.allSatisfy($0.contains) }
            .compactMap { line in line.split(separator: " ").last.flatMap { Double($0) } }
            .first
    }

    @Test func scrapeShowsTheRequestCounterAndPoolGauges() async throws {
        try await H.run { harness, client in
            let ready = try await client.call(.get, "/health/ready", key: nil)
            #expect(ready.status == .ok)
            let entitlements = try await client.call(.get, "/v1/accounts/alice/entitlements", key: harness.keyOne)
            #expect(entitlements.status == .ok)

            // A request is counted when its handler returns, before its body is written; look again a few times all
            // the same, in case the scrape overtakes it.
            var scraped = try await Self.scrape(client)
            for _ in 0..<200 where !scraped.text.contains("http_route=\"/v1/accounts/{account_id}/entitlements\"") {
                try await Task.sleep(for: .milliseconds(50))
                scraped = try await Self.scrape(client)
            }
            #expect(scraped.status == .ok)
            #expect(scraped.contentType?.hasPrefix("text/plain") == true)
            let requests = Self.sample(
                scraped.text, "hb_requests{",
                ["http_route=\"/health/ready\"", "http_request_method=\"GET\"", "http_response_status_code=\"200\""])
            #expect((requests ?? 0) >= 1, "hb_requests for /health/ready")
            let templated = Self.sample(
                scraped.text, "hb_requests{", ["http_route=\"/v1/accounts/{account_id}/entitlements\""])
            #expect((templated ?? 0) >= 1, "requests are labelled by route template, not by account")
            #expect(scraped.text.contains("http_server_request_duration_bucket{"))

            let open = Self.sample(scraped.text, "subledger_db_pool_connections_open")
            #expect((open ?? 0) >= 1, "the requests above opened a connection")
            #expect(Self.sample(scraped.text, "subledger_db_pool_connections_in_use") != nil)
            #expect(Self.sample(scraped.text, "subledger_db_pool_connections_idle") != nil)
            #expect(Self.sample(scraped.text, "subledger_db_pool_waiters") != nil)
            #expect(Self.sample(scraped.text, "subledger_db_pool_connections_max") == 8)
        }
    }

    @Test func aRefusedRequestIsCountedAsAnErrorOfItsRouteAndStatus() async throws {
        try await H.run { _, client in
            let refused = try await client.call(.get, "/v1/accounts/alice/entitlements", key: nil)
            #expect(refused.status == .unauthorized)
            let scraped = try await Self.scrape(client)
            let route = "http_route=\"/v1/accounts/{account_id}/entitlements\""
            let errors = Self.sample(scraped.text, "hb_request_errors{", [route, "error_type=\"401\""])
            #expect((errors ?? 0) >= 1, "hb_request_errors for the 401")
            let counted = Self.sample(scraped.text, "hb_requests{", [route, "http_response_status_code=\"401\""])
            #expect((counted ?? 0) >= 1, "hb_requests for the 401")
        }
    }

    @Test func appleCallsAreCountedAndTimedByEndpointAndOutcome() async throws {
        try await H.run { _, client in
            let endpoint = AppleCallMetrics.Endpoint("test_\(UUID().uuidString.prefix(8).lowercased())")
            let answer = await AppleCallMetrics.measure(endpoint, classify: { $0 ? .success : .retryable }) { true }
            #expect(answer)
            AppleCallMetrics.record(endpoint, outcome: .retryable, duration: .milliseconds(30))
            AppleCallMetrics.record(endpoint, outcome: .retryable, duration: .milliseconds(30))

            let text = try await Self.scrape(client).text
            let endpointLabel = "endpoint=\"\(endpoint.name)\""
            #expect(Self.sample(text, "subledger_apple_calls_total{", [endpointLabel, "outcome=\"success\""]) == 1)
            #expect(Self.sample(text, "subledger_apple_calls_total{", [endpointLabel, "outcome=\"retryable\""]) == 2)
            #expect(
                Self.sample(
                    text, "subledger_apple_call_duration_seconds_count{", [endpointLabel, "outcome=\"retryable\""]) == 2
            )
        }
    }

    @Test func ledgerEffectsAreCountedByKind() async throws {
        try await H.run { harness, client in
            let before =
                Self.sample(try await Self.scrape(client).text, "subledger_ledger_entries_total{", ["kind=\"grant\""])
                ?? 0
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let purchase = Transaction(
                transactionID: "m1", chainID: "m1", productID: "pro.monthly", bundleID: H.appOne,
                purchaseDate: H.day(0), expiresDate: H.day(30), subscriptionGroupID: "g1", environment: .production,
                source: .signedTransaction, signedDate: H.day(0))
            let applied = try await harness.store.apply(
                LedgerInput(
                    kind: .signedTransaction, bundleID: H.appOne, environment: .production,
                    submitter: try AccountID("carol"), transactions: [purchase]),
                app: app, now: H.day(0))
            #expect(applied.decision.entries.map(\.kind) == [.grant])
            LedgerMetrics.record(applied)

            let after = Self.sample(
                try await Self.scrape(client).text, "subledger_ledger_entries_total{", ["kind=\"grant\""])
            // Other suites may record grants concurrently in this process: at least ours must show.
            #expect((after ?? 0) >= before + 1)
        }
    }
}
