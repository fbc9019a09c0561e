import Crypto
import Foundation
import SubLedgerCore
@_spi(FixedExpiryValidationTime) import X509

/// Validates a JWS `x5c` chain to the configured roots and checks Apple's marker extensions.
///
/// `x5c[2]` (the root the token claims) is ignored: only configured roots are trusted, and chain
/// building runs from the leaf through `x5c[1]` to one of them.
struct CertificateChainVerifier: Sendable {
    let roots: [TrustedRoot]
    let cache: ChainVerdictCache

    init(roots: [TrustedRoot], cacheCapacity: Int) {
        self.roots = roots
        self.cache = ChainVerdictCache(capacity: cacheCapacity)
    }

    /// The leaf's P-256 key when the chain is valid at `time`.
    func verify(chain encoded: [String], at time: Instant) async throws(JWSVerificationError) -> P256.Signing.PublicKey
    {
        guard encoded.count == 3 else {
            throw JWSVerificationError(.missingCertificateChain, detail: "x5c holds \(encoded.count) certificates")
        }
        if let verdict = cache.verdict(for: encoded, at: time) {
            return verdict.leafKey
        }
        let leaf = try Self.certificate(encoded[0])
        let intermediate = try Self.certificate(encoded[1])
        // The claimed root must at least be a certificate, even though only configured roots are trusted.
        _ = try Self.certificate(encoded[2])

        let strictRoots = roots.filter(\.strictRFC5280).map(\.certificate)
        var verifier = Verifier(rootCertificates: CertificateStore(roots.map(\.certificate))) {
            RFC5280Policy(fixedExpiryValidationTime: time.date)
            KeyIdentifierLinkagePolicy(strictRoots: strictRoots)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        guard case .validCertificate(let validated) = result else {
            throw JWSVerificationError(.invalidCertificateChain, detail: "no valid path to a configured root")
        }
        let path = Array(validated)
        guard path.count == 3, path[1] == intermediate else {
            throw JWSVerificationError(.invalidCertificateChain, detail: "path is not leaf, intermediate, root")
        }
        guard leaf.extensions[oid: AppleMarkerOID.appStoreSigningLeaf] != nil else {
            throw JWSVerificationError(.missingAppleOID, detail: "leaf lacks 1.2.840.113635.100.6.11.1")
        }
        guard intermediate.extensions[oid: AppleMarkerOID.worldwideDeveloperRelationsIntermediate] != nil else {
            throw JWSVerificationError(.missingAppleOID, detail: "intermediate lacks 1.2.840.113635.100.6.2.1")
        }
        guard let leafKey = P256.Signing.PublicKey(leaf.publicKey) else {
            throw JWSVerificationError(.malformedCertificate, detail: "leaf key is not P-256")
        }
        let validFrom = path.map { Instant(date: $0.notValidBefore) }.max() ?? time
        let validUntil = path.map { Instant(date: $0.notValidAfter) }.min() ?? time
        cache.store(.init(leafKey: leafKey, validFrom: validFrom, validUntil: validUntil), for: encoded)
        return leafKey
    }

    private static func certificate(_ base64: String) throws(JWSVerificationError) -> Certificate {
        guard base64.utf8.count <= 16 * 1024, let der = Data(base64Encoded: base64) else {
            throw JWSVerificationError(.malformedCertificate, detail: "x5c entry is not base64")
        }
        do {
            return try Certificate(derEncoded: Array(der))
        } catch {
            throw JWSVerificationError(.malformedCertificate, detail: "x5c entry is not a DER certificate")
        }
    }
}
