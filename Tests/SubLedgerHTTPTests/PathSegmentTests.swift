import SubLedgerCore
import Testing

@testable import SubLedgerHTTP

/// Percent-decoding of path parameters (RFC 3986, section 2.1), and what it refuses.
@Suite struct PathSegmentTests {
    @Test(arguments: [
        ("alice", "alice"), ("al%69ce", "alice"), ("bob%40example.com", "bob@example.com"),
        ("%62ob%40EXAMPLE%2ecom", "bob@EXAMPLE.com"), ("caf%C3%A9", "café"), ("a+b", "a+b"), ("", ""),
    ])
    func decodes(raw: String, decoded: String) {
        #expect(PathSegment.decode(raw) == .success(decoded))
    }

    @Test(arguments: [
        ("%", PathSegment.Refusal.malformedEscape), ("a%4", .malformedEscape), ("a%zz", .malformedEscape),
        ("a%4g", .malformedEscape), ("a%2Fb", .encodedSlash), ("a%2fb", .encodedSlash), ("a%00", .invalidText),
        ("a%FF", .invalidText), ("a%C3", .invalidText), ("%C3%28", .invalidText),
    ])
    func refuses(raw: String, refusal: PathSegment.Refusal) {
        #expect(PathSegment.decode(raw) == .failure(refusal))
    }

    /// The event loop's entitlement reads decode an id as the router's handler does (`APIConformanceTests` compares
    /// the answers), and leave what the router refuses or does not route here to the router.
    @Test func theEventLoopsReadsDecodeIdsAsTheRouterDoes() {
        let plain = EntitlementReadRoute.account(inPath: "/v1/accounts/bob@example.com/entitlements")
        #expect(plain?.rawValue == "bob@example.com")
        #expect(
            EntitlementReadRoute.account(inPath: "/v1/accounts/bob%40example.com/entitlements")?.rawValue
                == "bob@example.com")
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts/al%69ce/entitlements")?.rawValue == "alice")
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts/a%2Fb/entitlements") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts/a%4/entitlements") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts/alice/entitlements/") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts//entitlements") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts/alice/entitlements?at=0") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts/alice/subscriptions") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v2/accounts/alice/entitlements") == nil)
        // Told apart by the route's first bytes (`/v1/accounts/`), before its segments are read.
        #expect(EntitlementReadRoute.account(inPath: "/health/live") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/accountsx/alice/entitlements") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/account/alice/entitlements") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts") == nil)
        #expect(EntitlementReadRoute.account(inPath: "/v1/accounts/") == nil)
        #expect(EntitlementReadRoute.account(inPath: "v1/accounts/alice/entitlements") == nil)
    }
}
