import SwiftASN1
import X509

/// Requires, for chains ending at a strict root, that every certificate names its issuer's key identifier.
///
/// RFC 5280 §4.2.1.1 requires the authority key identifier in every certificate a conforming CA issues
/// (self-signed roots excepted). Apple's production chain has them; Apple's test chain does not, which is
/// why strictness is a per-root choice (`TrustedRoot.strictRFC5280`).
struct KeyIdentifierLinkagePolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The roots whose chains must satisfy the linkage.
    let strictRoots: [Certificate]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard let root = chain.last, strictRoots.contains(root) else { return .meetsPolicy }
        let certificates = Array(chain)
        for index in 0..<(certificates.count - 1) {
            let subject = certificates[index]
            let issuer = certificates[index + 1]
            guard let authorityKey = try? subject.extensions.authorityKeyIdentifier,
                let authorityKeyID = authorityKey.keyIdentifier
            else {
                return .failsToMeetPolicy(reason: "certificate \(index) has no authority key identifier")
            }
            guard let subjectKey = try? issuer.extensions.subjectKeyIdentifier,
                subjectKey.keyIdentifier == authorityKeyID
            else {
                return .failsToMeetPolicy(reason: "certificate \(index) names a different issuer key")
            }
        }
        return .meetsPolicy
    }
}
