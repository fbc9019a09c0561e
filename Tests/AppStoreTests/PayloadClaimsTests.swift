import AppStore
import Foundation
import Testing

/// `PayloadClaims`: which app and environment a signed payload claims, before verification, in each of Apple's
/// shapes; a claim that is not a string, or a payload that is not a JSON object, claims nothing.
@Suite struct PayloadClaimsTests {
    static func claims(_ json: String) -> PayloadClaims? { PayloadClaims.read(Data(json.utf8)) }

    @Test func aTransactionOrRenewalInfoClaimsAtItsTopLevel() {
        let claims = Self.claims(#"{"bundleId":"com.example","environment":"Sandbox","transactionId":"1"}"#)
        #expect(claims?.bundleID == "com.example")
        #expect(claims?.environment == "Sandbox")
    }

    @Test func aNotificationClaimsThroughTheFirstOfItsInnerObjectsPresent() {
        let data = Self.claims(#"{"notificationType":"TEST","data":{"bundleId":"a","environment":"Production"}}"#)
        #expect(data?.bundleID == "a")
        #expect(data?.environment == "Production")
        let summary = Self.claims(#"{"summary":{"bundleId":"b","environment":"Sandbox"}}"#)
        #expect(summary?.bundleID == "b")
        let external = Self.claims(#"{"externalPurchaseToken":{"bundleId":"c"}}"#)
        #expect(external?.bundleID == "c")
        #expect(external?.environment == nil)
        // The top level wins over an inner object.
        #expect(Self.claims(#"{"bundleId":"top","data":{"bundleId":"inner"}}"#)?.bundleID == "top")
    }

    /// Apple's `externalPurchaseToken` states no environment: its id's `SANDBOX` prefix does.
    @Test func anExternalPurchaseTokenClaimsTheEnvironmentItsIdMarks() {
        let sandbox = Self.claims(#"{"externalPurchaseToken":{"bundleId":"c","externalPurchaseId":"SANDBOX_1"}}"#)
        #expect(sandbox?.environment == "Sandbox")
        let production = Self.claims(#"{"externalPurchaseToken":{"bundleId":"c","externalPurchaseId":"0a1b"}}"#)
        #expect(production?.environment == "Production")
    }

    @Test func claimsThatAreNotStringsOrAPayloadThatIsNotAnObjectClaimNothing() {
        #expect(Self.claims(#"{"bundleId":42}"#) == nil)
        #expect(Self.claims(#"{"data":{"environment":["Sandbox"]}}"#) == nil)
        #expect(Self.claims(#"["bundleId"]"#) == nil)
        #expect(Self.claims("not json") == nil)
        #expect(Self.claims("{}") == PayloadClaims.read(Data(#"{"other":1}"#.utf8)))
    }
}
