import HTTPTypes
import Testing

@testable import SubLedgerHTTP

/// Which responses carry `SubLedger-Consistency-Token` (docs/guides/scale-out.md, "Read replicas").
@Suite struct ConsistencyTokenRuleTests {
    @Test func aSuccessfulWriteCarriesOneAndAReadOrARefusalDoesNot() {
        #expect(ConsistencyTokenMiddleware.carriesToken(method: .post, status: 200, path: "/v1/receipts"))
        #expect(ConsistencyTokenMiddleware.carriesToken(method: .delete, status: 204, path: "/v1/webhooks/endpoints/x"))
        #expect(
            !ConsistencyTokenMiddleware.carriesToken(method: .get, status: 200, path: "/v1/accounts/a/entitlements"))
        #expect(!ConsistencyTokenMiddleware.carriesToken(method: .post, status: 422, path: "/v1/receipts"))
    }

    /// Neither store reads a token, so no store's push pays the WAL position's round trip (Google's did).
    @Test func noStorePushCarriesOne() {
        for path in ["/v1/notifications/appstore", "/v1/notifications/google"] {
            #expect(!ConsistencyTokenMiddleware.carriesToken(method: .post, status: 200, path: path), "\(path)")
        }
    }
}
