import Foundation
import SwiftASN1
import X509

/// A root certificate that signed data from Apple may chain to, with how strictly chains to it are checked.
///
/// Apple's production root (Apple Root CA - G3) and the chains under it follow RFC 5280 fully, so
/// `strictRFC5280` is `true` for it: every non-root certificate must carry an authority key identifier that
/// matches its issuer. Apple's published *test* certificates omit authority key identifiers, so a test root
/// is configured with `strictRFC5280: false`; the relaxation applies to chains ending at that root only.
public struct TrustedRoot: Hashable, Sendable {
    /// The self-signed root certificate.
    public var certificate: Certificate
    /// Whether chains to this root must also satisfy RFC 5280's key-identifier linkage.
    public var strictRFC5280: Bool

    /// A root from an already parsed certificate.
    public init(certificate: Certificate, strictRFC5280: Bool) {
        self.certificate = certificate
        self.strictRFC5280 = strictRFC5280
    }

    /// A root from DER bytes or a PEM `CERTIFICATE` block.
    public init(derOrPEM bytes: some DataProtocol, strictRFC5280: Bool) throws(JWSVerificationError) {
        let data = Data(bytes)
        do {
            if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") {
                self.certificate = try Certificate(pemEncoded: text)
            } else {
                self.certificate = try Certificate(derEncoded: Array(data))
            }
        } catch {
            throw JWSVerificationError(.invalidConfiguration, detail: "root certificate could not be parsed")
        }
        self.strictRFC5280 = strictRFC5280
    }

    /// Apple Root CA - G3, shipped with this module; the root of production and sandbox signed data.
    public static func appleRootCAG3() throws(JWSVerificationError) -> TrustedRoot {
        guard let url = Bundle.module.url(forResource: "AppleRootCA-G3", withExtension: "der"),
            let data = try? Data(contentsOf: url)
        else {
            throw JWSVerificationError(.invalidConfiguration, detail: "AppleRootCA-G3.der resource missing")
        }
        return try TrustedRoot(derOrPEM: data, strictRFC5280: true)
    }
}
