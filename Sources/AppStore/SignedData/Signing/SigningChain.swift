import Crypto
import Foundation
import SubLedgerCore
import SwiftASN1
import X509

/// A freshly generated P-256 root, intermediate and leaf shaped like Apple's App Store signing chain.
///
/// The App Store simulator and tests sign transactions, renewal info and notifications with it, and
/// configure `trustedRoot` as the verifier's root. The leaf and intermediate carry Apple's marker
/// extensions, and every certificate carries key identifiers, so chains pass the strict RFC 5280 policy.
public struct SigningChain: Sendable {
    /// Variations for negative tests; the default is a chain the verifier accepts.
    public struct Options: Sendable {
        /// Whether the leaf carries 1.2.840.113635.100.6.11.1. Default: `true`.
        public var leafHasAppleOID: Bool
        /// Whether the intermediate carries 1.2.840.113635.100.6.2.1. Default: `true`.
        public var intermediateHasAppleOID: Bool
        /// Whether certificates carry subject and authority key identifiers. Default: `true`.
        public var includeKeyIdentifiers: Bool
        /// Prefix of the certificates' common names. Default: `SubLedger App Store Simulator`.
        public var commonNamePrefix: String

        /// Creates options.
        public init(
            leafHasAppleOID: Bool = true,
            intermediateHasAppleOID: Bool = true,
            includeKeyIdentifiers: Bool = true,
            commonNamePrefix: String = "SubLedger App Store Simulator"
        ) {
            self.leafHasAppleOID = leafHasAppleOID
            self.intermediateHasAppleOID = intermediateHasAppleOID
            self.includeKeyIdentifiers = includeKeyIdentifiers
            self.commonNamePrefix = commonNamePrefix
        }
    }

    /// The self-signed root.
    public let root: Certificate
    /// The intermediate, issued by the root.
    public let intermediate: Certificate
    /// The signing leaf, issued by the intermediate.
    public let leaf: Certificate
    /// The leaf's private key, which signs JWS payloads.
    public let leafPrivateKey: P256.Signing.PrivateKey

    /// The root as a verifier root (strict when the chain has key identifiers).
    public var trustedRoot: TrustedRoot {
        TrustedRoot(certificate: root, strictRFC5280: hasKeyIdentifiers)
    }

    private let hasKeyIdentifiers: Bool

    /// Creates a chain from existing parts (e.g. loaded by the simulator from disk).
    public init(
        root: Certificate,
        intermediate: Certificate,
        leaf: Certificate,
        leafPrivateKey: P256.Signing.PrivateKey
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafPrivateKey = leafPrivateKey
        self.hasKeyIdentifiers = (try? leaf.extensions.authorityKeyIdentifier) != nil
    }

    /// The `x5c` header value: base64 DER of leaf, intermediate, root.
    public func x5c() throws -> [String] {
        try [leaf, intermediate, root].map { Data(try Self.der($0)).base64EncodedString() }
    }

    /// DER bytes of a certificate.
    public static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// Generates a chain whose certificates are valid from `notValidBefore` to `notValidAfter`.
    public static func generate(
        notValidBefore: Instant,
        notValidAfter: Instant,
        options: Options = Options()
    ) throws -> SigningChain {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CountryName("US")
            OrganizationName("SubLedger")
            CommonName("\(options.commonNamePrefix) Root")
        }
        let intermediateName = try DistinguishedName {
            CountryName("US")
            OrganizationName("SubLedger")
            CommonName("\(options.commonNamePrefix) Intermediate")
        }
        let leafName = try DistinguishedName {
            CountryName("US")
            OrganizationName("SubLedger")
            CommonName("\(options.commonNamePrefix) Leaf")
        }
        let rootPublic = Certificate.PublicKey(rootKey.publicKey)
        let intermediatePublic = Certificate.PublicKey(intermediateKey.publicKey)
        let leafPublic = Certificate.PublicKey(leafKey.publicKey)
        let appleMarkerValue: ArraySlice<UInt8> = [0x05, 0x00]

        let root = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: rootPublic,
            notValidBefore: notValidBefore.date,
            notValidAfter: notValidAfter.date,
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                if options.includeKeyIdentifiers {
                    SubjectKeyIdentifier(hash: rootPublic)
                }
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey)
        )
        let intermediate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: intermediatePublic,
            notValidBefore: notValidBefore.date,
            notValidAfter: notValidAfter.date,
            issuer: rootName,
            subject: intermediateName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                if options.includeKeyIdentifiers {
                    SubjectKeyIdentifier(hash: intermediatePublic)
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: rootPublic).keyIdentifier)
                }
                if options.intermediateHasAppleOID {
                    Certificate.Extension(
                        oid: AppleMarkerOID.worldwideDeveloperRelationsIntermediate,
                        critical: false,
                        value: appleMarkerValue
                    )
                }
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey)
        )
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: leafPublic,
            notValidBefore: notValidBefore.date,
            notValidAfter: notValidAfter.date,
            issuer: intermediateName,
            subject: leafName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                if options.includeKeyIdentifiers {
                    SubjectKeyIdentifier(hash: leafPublic)
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: intermediatePublic).keyIdentifier)
                }
                if options.leafHasAppleOID {
                    Certificate.Extension(
                        oid: AppleMarkerOID.appStoreSigningLeaf, critical: false, value: appleMarkerValue)
                }
            },
            issuerPrivateKey: Certificate.PrivateKey(intermediateKey)
        )
        return SigningChain(root: root, intermediate: intermediate, leaf: leaf, leafPrivateKey: leafKey)
    }
}
