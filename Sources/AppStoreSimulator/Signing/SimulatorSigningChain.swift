import AppStore
import Crypto
import Foundation
import SwiftASN1
import X509

/// Builds the simulator's App Store signing chain (root → WWDR-like intermediate → signing leaf) from the seed.
///
/// Keys, names, serial numbers and validity are derived from the seed, so every run with the same seed
/// has the same root key: a root exported once (`--export-root`) keeps verifying later runs' signatures.
/// (ECDSA signatures are randomized, so the certificate bytes differ between runs; the keys do not.)
enum SimulatorSigningChain {
    /// Certificates are valid from 2000 to 2100, so both simulated and wall-clock times fall inside.
    static let notValidBefore = Date(timeIntervalSince1970: 946_684_800)
    static let notValidAfter = Date(timeIntervalSince1970: 4_102_444_800)

    static func make(seed: UInt64) throws -> SigningChain {
        let rootKey = SeedDerivation.signingKey(seed: seed, label: "chain:root")
        let intermediateKey = SeedDerivation.signingKey(seed: seed, label: "chain:intermediate")
        let leafKey = SeedDerivation.signingKey(seed: seed, label: "chain:leaf")
        func name(_ role: String) throws -> DistinguishedName {
            try DistinguishedName {
                CountryName("US")
                OrganizationName("SubLedger App Store Simulator")
                OrganizationalUnitName("seed \(seed)")
                CommonName("App Store Simulator \(role)")
            }
        }
        func serial(_ label: String) -> Certificate.SerialNumber {
            var bytes = SeedDerivation.bytes(seed: seed, label: "serial:" + label).prefix(16)
            bytes[bytes.startIndex] &= 0x7F
            bytes[bytes.startIndex] |= 0x01
            return Certificate.SerialNumber(bytes: ArraySlice(bytes))
        }
        let rootName = try name("Root CA")
        let intermediateName = try name("Worldwide Developer Relations")
        let leafName = try name("Signing")
        let rootPublic = Certificate.PublicKey(rootKey.publicKey)
        let intermediatePublic = Certificate.PublicKey(intermediateKey.publicKey)
        let leafPublic = Certificate.PublicKey(leafKey.publicKey)
        let marker: ArraySlice<UInt8> = [0x05, 0x00]

        let root = try Certificate(
            version: .v3, serialNumber: serial("root"), publicKey: rootPublic,
            notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: rootPublic)
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey))
        let intermediate = try Certificate(
            version: .v3, serialNumber: serial("intermediate"), publicKey: intermediatePublic,
            notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: rootName,
            subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: intermediatePublic)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: rootPublic).keyIdentifier)
                Certificate.Extension(
                    oid: AppleMarkerOID.worldwideDeveloperRelationsIntermediate, critical: false, value: marker)
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey))
        let leaf = try Certificate(
            version: .v3, serialNumber: serial("leaf"), publicKey: leafPublic,
            notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: intermediateName,
            subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectKeyIdentifier(hash: leafPublic)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: intermediatePublic).keyIdentifier)
                Certificate.Extension(oid: AppleMarkerOID.appStoreSigningLeaf, critical: false, value: marker)
            },
            issuerPrivateKey: Certificate.PrivateKey(intermediateKey))
        return SigningChain(root: root, intermediate: intermediate, leaf: leaf, leafPrivateKey: leafKey)
    }
}
