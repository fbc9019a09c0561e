import Foundation
import SubLedgerCore
import SwiftASN1

/// Reads an app receipt's fields (bundle id, versions, in-app transaction ids) without calling Apple.
///
/// - Important: This does **not** verify the receipt's PKCS#7 signature. Its purpose is to extract
///   transaction ids to query the App Store Server API, whose signed answers are then verified; never
///   grant anything on the strength of this reader's output alone.
///
/// Parsing is bounded: input larger than `maximumBytes` is refused, swift-asn1 refuses nesting beyond
/// its depth limit, and any malformed, truncated or unexpected structure is a typed `AppReceiptError`.
public struct AppReceiptReader: Sendable {
    /// The default bound on decoded receipt size: 8 MiB, far above real receipts with long histories.
    public static let defaultMaximumBytes = 8 * 1024 * 1024

    /// The largest decoded receipt accepted.
    public var maximumBytes: Int

    /// Creates a reader.
    public init(maximumBytes: Int = AppReceiptReader.defaultMaximumBytes) {
        self.maximumBytes = maximumBytes
    }

    private static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    private static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]

    /// Reads a base64 receipt as apps send it (whitespace and line breaks allowed).
    public func read(base64 text: String) throws(AppReceiptError) -> AppReceipt {
        guard text.utf8.count <= maximumBytes / 3 * 4 + 4096 else { throw AppReceiptError(.tooLarge) }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty else {
            throw AppReceiptError(.invalidBase64)
        }
        return try read(der: Array(data))
    }

    /// Reads receipt bytes (BER or DER PKCS#7 ContentInfo).
    public func read(der bytes: [UInt8]) throws(AppReceiptError) -> AppReceipt {
        guard bytes.count <= maximumBytes else { throw AppReceiptError(.tooLarge) }
        let content = try signedContent(of: bytes)
        return try receipt(fromPayload: content)
    }

    // MARK: PKCS#7 container

    private func signedContent(of bytes: [UInt8]) throws(AppReceiptError) -> ArraySlice<UInt8> {
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw AppReceiptError(.malformedContainer)
        }
        // ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT SignedData }
        let contentInfo = try children(of: root, expecting: .sequence, else: .malformedContainer)
        guard contentInfo.count >= 2 else { throw AppReceiptError(.malformedContainer) }
        guard try objectIdentifier(contentInfo[0]) == Self.signedDataOID else {
            throw AppReceiptError(.unexpectedContentType)
        }
        let explicitContent = try children(
            of: contentInfo[1],
            expecting: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            else: .malformedContainer
        )
        guard let signedDataNode = explicitContent.first else { throw AppReceiptError(.malformedContainer) }
        // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE, ... }
        let signedData = try children(of: signedDataNode, expecting: .sequence, else: .malformedContainer)
        guard signedData.count >= 3 else { throw AppReceiptError(.malformedContainer) }
        let encapsulated = try children(of: signedData[2], expecting: .sequence, else: .malformedContainer)
        guard encapsulated.count >= 2 else { throw AppReceiptError(.malformedContainer) }
        guard try objectIdentifier(encapsulated[0]) == Self.dataOID else {
            throw AppReceiptError(.unexpectedContentType)
        }
        let eContent = try children(
            of: encapsulated[1],
            expecting: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            else: .malformedContainer
        )
        guard let octets = eContent.first, let value = try? ASN1OctetString(berEncoded: octets) else {
            throw AppReceiptError(.malformedContainer)
        }
        return value.bytes
    }

    // MARK: Apple's attribute SET

    private func receipt(fromPayload payload: ArraySlice<UInt8>) throws(AppReceiptError) -> AppReceipt {
        var receipt = AppReceipt()
        for (type, value) in try attributes(in: payload) {
            switch type {
            case 0: receipt.receiptType = string(value)
            case 2: receipt.bundleID = string(value)
            case 3: receipt.applicationVersion = string(value)
            case 12: receipt.creationDate = try date(value, field: "receipt_creation_date")
            case 17: receipt.inAppPurchases.append(try inAppPurchase(value))
            case 19: receipt.originalApplicationVersion = string(value)
            case 21: receipt.expirationDate = try date(value, field: "expiration_date")
            default: continue
            }
        }
        return receipt
    }

    private func inAppPurchase(_ payload: ArraySlice<UInt8>) throws(AppReceiptError) -> AppReceiptInAppPurchase {
        var purchase = AppReceiptInAppPurchase()
        for (type, value) in try attributes(in: payload) {
            switch type {
            case 1701: purchase.quantity = integer(value)
            case 1702: purchase.productID = string(value)
            case 1703: purchase.transactionID = string(value)
            case 1704: purchase.purchaseDate = try date(value, field: "purchase_date")
            case 1705: purchase.originalTransactionID = string(value)
            case 1706: purchase.originalPurchaseDate = try date(value, field: "original_purchase_date")
            case 1708: purchase.expiresDate = try date(value, field: "expires_date")
            case 1711: purchase.webOrderLineItemID = integer(value)
            case 1712: purchase.cancellationDate = try date(value, field: "cancellation_date")
            case 1719: purchase.isInIntroOfferPeriod = integer(value).map { $0 != 0 }
            default: continue
            }
        }
        return purchase
    }

    /// `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }` as (type, value bytes).
    private func attributes(in payload: ArraySlice<UInt8>) throws(AppReceiptError) -> [(Int64, ArraySlice<UInt8>)] {
        let root: ASN1Node
        do {
            root = try BER.parse(payload)
        } catch {
            throw AppReceiptError(.malformedPayload)
        }
        var result: [(Int64, ArraySlice<UInt8>)] = []
        for attribute in try children(of: root, expecting: .set, else: .malformedPayload) {
            let fields = try children(of: attribute, expecting: .sequence, else: .malformedPayload)
            guard fields.count == 3,
                let type = try? Int64(berEncoded: fields[0]),
                (try? Int64(berEncoded: fields[1])) != nil,
                let value = try? ASN1OctetString(berEncoded: fields[2])
            else {
                throw AppReceiptError(.malformedPayload)
            }
            result.append((type, value.bytes))
        }
        return result
    }

    // MARK: Values (lenient: an unreadable value is absent, not an error; an impossible date is an error)

    private func string(_ bytes: ArraySlice<UInt8>) -> String? {
        guard let node = try? BER.parse(bytes) else { return nil }
        if let utf8 = try? ASN1UTF8String(berEncoded: node) { return String(decoding: utf8.bytes, as: UTF8.self) }
        if let ia5 = try? ASN1IA5String(berEncoded: node) { return String(decoding: ia5.bytes, as: UTF8.self) }
        return nil
    }

    private func integer(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard let node = try? BER.parse(bytes) else { return nil }
        return try? Int64(berEncoded: node)
    }

    private func date(_ bytes: ArraySlice<UInt8>, field: String) throws(AppReceiptError) -> Int64? {
        guard let instant = string(bytes).flatMap(RFC3339.parse) else { return nil }
        guard instant.isAccepted else { throw AppReceiptError(.dateOutOfRange, field: field) }
        return instant.millisecondsSince1970
    }

    // MARK: Structure helpers

    private func children(
        of node: ASN1Node,
        expecting identifier: ASN1Identifier,
        else code: AppReceiptError.Code
    ) throws(AppReceiptError) -> [ASN1Node] {
        guard node.identifier == identifier, case .constructed(let nodes) = node.content else {
            throw AppReceiptError(code)
        }
        return Array(nodes)
    }

    private func objectIdentifier(_ node: ASN1Node) throws(AppReceiptError) -> ASN1ObjectIdentifier {
        guard let oid = try? ASN1ObjectIdentifier(berEncoded: node) else { throw AppReceiptError(.malformedContainer) }
        return oid
    }
}
