import AppStore
import Crypto
import SwiftASN1
import X509

/// Wraps a receipt payload in a CMS (PKCS#7) SignedData, signed by the simulator's leaf key (ECDSA with
/// SHA-256 over the content, no signed attributes), carrying the leaf and intermediate certificates.
enum PKCS7Container {
    private static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    private static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    private static let sha256OID: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    private static let ecdsaWithSHA256OID: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    private static let contextZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    static func signedData(content: [UInt8], chain: SigningChain) throws -> [UInt8] {
        let signature = try chain.leafPrivateKey.signature(for: content).derRepresentation
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { contentInfo in
            try contentInfo.serialize(signedDataOID)
            try contentInfo.appendConstructedNode(identifier: contextZero) { explicit in
                try explicit.appendConstructedNode(identifier: .sequence) { signedData in
                    try signedData.serialize(Int64(1))
                    try signedData.appendConstructedNode(identifier: .set) { algorithms in
                        try digestAlgorithm(&algorithms)
                    }
                    try signedData.appendConstructedNode(identifier: .sequence) { encapsulated in
                        try encapsulated.serialize(dataOID)
                        try encapsulated.appendConstructedNode(identifier: contextZero) { eContent in
                            try eContent.serialize(ASN1OctetString(contentBytes: ArraySlice(content)))
                        }
                    }
                    try signedData.appendConstructedNode(identifier: contextZero) { certificates in
                        try certificates.serialize(chain.leaf)
                        try certificates.serialize(chain.intermediate)
                    }
                    try signedData.appendConstructedNode(identifier: .set) { signerInfos in
                        try signerInfos.appendConstructedNode(identifier: .sequence) { signerInfo in
                            try signerInfo.serialize(Int64(1))
                            try signerInfo.appendConstructedNode(identifier: .sequence) { issuerAndSerial in
                                try issuerAndSerial.serialize(chain.leaf.issuer)
                                try issuerAndSerial.serialize(chain.leaf.serialNumber.bytes)
                            }
                            try digestAlgorithm(&signerInfo)
                            try signerInfo.appendConstructedNode(identifier: .sequence) { algorithm in
                                try algorithm.serialize(ecdsaWithSHA256OID)
                            }
                            try signerInfo.serialize(ASN1OctetString(contentBytes: ArraySlice(signature)))
                        }
                    }
                }
            }
        }
        return serializer.serializedBytes
    }

    private static func digestAlgorithm(_ serializer: inout DER.Serializer) throws {
        try serializer.appendConstructedNode(identifier: .sequence) { algorithm in
            try algorithm.serialize(sha256OID)
            try algorithm.serialize(ASN1Null())
        }
    }
}
