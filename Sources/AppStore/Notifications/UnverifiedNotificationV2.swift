import Foundation

/// A V2 notification's `signedPayload`, parsed and its payload decoded once, before any verification: the
/// decoded payload and the app and environment it claims.
///
/// The claims only choose which app's verifier to use. `SignedDataVerifier.verifyNotification(_:)` then
/// checks the chain and signature over the exact bytes `payload` was decoded from, and the app and
/// environment the payload states, so nothing here is trusted before that and the payload is decoded only
/// once (a second JSON pass over a 10 KB payload was a visible part of the CPU per notification).
public struct UnverifiedNotificationV2: Sendable {
    /// The parsed token.
    public let jws: CompactJWS
    /// The payload, decoded from `jws.payload`.
    public let payload: ResponseBodyV2DecodedPayload
    /// The bundle id the payload claims (`PayloadClaims`).
    public let claimedBundleID: String?
    /// The environment the payload claims, as spelled there, found the same way.
    public let claimedEnvironment: String?

    /// Reads `jws`'s payload and its claims (plainly, else in one JSON decoder pass); fails with
    /// `malformedPayload` when the payload is not a `ResponseBodyV2DecodedPayload` or a claim is not a string.
    public init(_ jws: CompactJWS) throws(JWSVerificationError) {
        self.jws = jws
        // Apple's plain form is read from the members the token's scan located (`PlainReadablePayload`); only
        // a payload outside it is decoded by the JSON decoder, which reads or refuses it as it always has.
        if let members = jws.payloadMembers, let payload = try? ResponseBodyV2DecodedPayload(plain: members),
            let claims = try? PayloadClaims(plain: members)
        {
            self.payload = payload
            self.claimedBundleID = claims.bundleID
            self.claimedEnvironment = claims.environment
            return
        }
        let decoded: ClaimsAndPayload
        do {
            decoded = try JSONDecoder().decode(ClaimsAndPayload.self, from: jws.payload)
        } catch {
            throw JWSVerificationError(.malformedPayload, detail: "payload is not a ResponseBodyV2DecodedPayload")
        }
        self.payload = decoded.payload
        self.claimedBundleID = decoded.claims.bundleID
        self.claimedEnvironment = decoded.claims.environment
    }

    /// The claims and the typed payload, read from one decoder (so from one parse of the text).
    private struct ClaimsAndPayload: Decodable {
        var claims: PayloadClaims
        var payload: ResponseBodyV2DecodedPayload

        init(from decoder: any Decoder) throws {
            claims = try PayloadClaims(from: decoder)
            payload = try ResponseBodyV2DecodedPayload(from: decoder)
        }
    }
}
