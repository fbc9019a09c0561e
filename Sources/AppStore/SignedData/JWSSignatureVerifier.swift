import Crypto
import Foundation
import SubLedgerCore

/// Verifies the chain and ES256 signature of any Apple JWS, without interpreting its payload.
///
/// Use `SignedDataVerifier` for App Store data: it adds the payload's bundle id, app id and environment
/// checks. This lower layer serves tools that must report authenticity alone (`subledger inspect`).
public struct JWSSignatureVerifier: Sendable {
    /// How the signature verifier is set up.
    public struct Configuration: Sendable {
        /// The roots chains may end at. Default: Apple Root CA - G3 (see `TrustedRoot.appleRootCAG3()`).
        public var roots: [TrustedRoot]
        /// When certificates must have been valid. Default: `.signedDate`.
        public var validationTime: CertificateValidationTime
        /// How many verified chains to remember. Default: 32; `0` disables the cache.
        public var chainCacheCapacity: Int

        /// Creates a configuration.
        public init(
            roots: [TrustedRoot], validationTime: CertificateValidationTime = .signedDate, chainCacheCapacity: Int = 32
        ) {
            self.roots = roots
            self.validationTime = validationTime
            self.chainCacheCapacity = chainCacheCapacity
        }
    }

    /// The configuration this verifier was made with.
    public let configuration: Configuration
    private let chainVerifier: CertificateChainVerifier
    private let now: @Sendable () -> Instant

    /// Creates a verifier; `now` is the clock for `.now` validation and payloads without `signedDate`.
    public init(
        configuration: Configuration,
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) throws(JWSVerificationError) {
        guard !configuration.roots.isEmpty else {
            throw JWSVerificationError(.invalidConfiguration, detail: "no trusted roots")
        }
        self.configuration = configuration
        self.chainVerifier = CertificateChainVerifier(
            roots: configuration.roots,
            cacheCapacity: configuration.chainCacheCapacity
        )
        self.now = now
    }

    /// Checks structure, algorithm, chain (to a configured root, with Apple's OIDs) and signature, in that order.
    ///
    /// `signingDate` names the payload field that says when Apple signed it: `signedDate` for everything but
    /// app transactions, whose signing moment is `receiptCreationDate` (see `PayloadSigningDate`).
    public func verify(
        _ token: String, signingDate: PayloadSigningDate = .signedDate
    ) async throws(JWSVerificationError) -> VerifiedJWS {
        try await verify(Self.decode(token), signingDate: signingDate)
    }

    /// `verify(_:signingDate:)` for a token the caller has already parsed with `decode(_:)` (to read the app
    /// it claims, say), so its parts are not parsed again.
    public func verify(
        _ jws: CompactJWS, signingDate: PayloadSigningDate = .signedDate
    ) async throws(JWSVerificationError) -> VerifiedJWS {
        try Self.checkCritical(jws)
        guard jws.header.algorithm == "ES256" else {
            throw JWSVerificationError(.unsupportedAlgorithm, detail: "alg is not ES256")
        }
        guard let chain = jws.header.certificateChain, !chain.isEmpty else {
            throw JWSVerificationError(.missingCertificateChain, detail: "header has no x5c")
        }
        let signedDate = try signingDate.read(from: jws.payloadMembers)
        let checkTime: Instant
        switch configuration.validationTime {
        case .signedDate: checkTime = signedDate ?? now()
        case .now: checkTime = now()
        }
        let leafKey = try await chainVerifier.verify(chain: chain, at: checkTime)
        guard jws.signature.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
            leafKey.isValidSignature(signature, for: jws.signingInput)
        else {
            throw JWSVerificationError(.invalidSignature, detail: "ES256 signature does not verify")
        }
        return VerifiedJWS(
            header: jws.header, payload: jws.payload, signedDate: signedDate, certificatesCheckedAt: checkTime)
    }

    /// Parses a token and checks what every reader of it must understand, without any chain or signature:
    /// the compact form, JSON without repeated keys, and no `crit` header (RFC 7515 §4.1.11 requires a
    /// recipient to refuse critical extensions it does not implement, and SubLedger implements none).
    ///
    /// Alone this proves nothing about who made the token: it serves data that Apple does not sign
    /// (`Xcode`, `LocalTesting`; see `SignedDataVerifier`) and verification, which goes on from here.
    public static func decode(_ token: String) throws(JWSVerificationError) -> CompactJWS {
        let jws = try CompactJWS(token)
        try checkCritical(jws)
        return jws
    }

    /// Refuses a header that lists critical extensions (see `decode(_:)`).
    static func checkCritical(_ jws: CompactJWS) throws(JWSVerificationError) {
        guard jws.header.critical == nil else {
            throw JWSVerificationError(.unsupportedCriticalHeader, detail: "header lists critical extensions")
        }
    }

    /// The number of chain verdicts currently cached.
    public var cachedChainCount: Int { chainVerifier.cache.count }
}
