import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerStore

/// The stored chain's hand-written JSON agrees with Foundation's coders, which wrote every row stored before it:
/// the writer writes Foundation's exact bytes, and the reader reads Foundation's output (compact and
/// pretty-printed) back to the same value.
@Suite struct StoredChainJSONAgreementTests {
    static let cases = 300

    static func foundationJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func prettyJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func foundationValue<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test(arguments: [false, true])
    func writerWritesFoundationsBytesForEveryChain(allowsNUL: Bool) throws {
        var values = StoredChainValues(seed: 0xC0DEC_0001, allowsNUL: allowsNUL)
        for index in 0..<Self.cases {
            let chain = values.chain()
            let json = StoredChainJSON.json(of: chain)
            #expect(json == (try Self.foundationJSON(chain)), "case \(index)")
            #expect(try Self.foundationValue(SubscriptionChain.self, json) == chain, "case \(index)")
            if let renewal = chain.renewalInfo {
                let renewalJSON = StoredChainJSON.json(of: renewal)
                #expect(renewalJSON == (try Self.foundationJSON(renewal)), "case \(index)")
                #expect(try Self.foundationValue(RenewalInfo.self, renewalJSON) == renewal, "case \(index)")
            }
        }
    }

    @Test(arguments: [false, true])
    func writerWritesFoundationsBytesForEveryTransaction(allowsNUL: Bool) throws {
        var values = StoredChainValues(seed: 0xC0DEC_0002, allowsNUL: allowsNUL)
        for index in 0..<Self.cases {
            let known = values.knownTransaction()
            let json = StoredChainJSON.json(of: known)
            #expect(json == (try Self.foundationJSON(known)), "case \(index)")
            #expect(try Self.foundationValue(KnownTransaction.self, json) == known, "case \(index)")
        }
    }

    @Test(arguments: [false, true])
    func readerReadsWhatFoundationWrote(allowsNUL: Bool) throws {
        var values = StoredChainValues(seed: 0xC0DEC_0003, allowsNUL: allowsNUL)
        for index in 0..<Self.cases {
            let chain = values.chain()
            #expect(try StoredChainJSON.chain(from: Self.foundationJSON(chain)) == chain, "case \(index)")
            #expect(try StoredChainJSON.chain(from: Self.prettyJSON(chain)) == chain, "case \(index)")
            let known = (0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.knownTransaction() }
            for transaction in known {
                #expect(try StoredChainJSON.transaction(from: Self.foundationJSON(transaction)) == transaction)
                #expect(try StoredChainJSON.transaction(from: Self.prettyJSON(transaction)) == transaction)
            }
            #expect(try StoredChainJSON.transactions(from: Self.foundationJSON(known)) == known, "case \(index)")
            #expect(try StoredChainJSON.transactions(from: Self.prettyJSON(known)) == known, "case \(index)")
        }
    }

    @Test func readerSkipsUnknownMembersAndTakesNullOrAbsentOptionalsAsNil() throws {
        let json = """
            { "future" : {"a": [1, -2.5e+10, true, false, null, "x\\u00e9\\ud834\\udd1e", {}, []]},
              "transaction": {"transactionID": "t1", "originalTransactionID": "o1", "productID": "p",
                "bundleID": null, "quantity": 1, "purchaseDate": -9223372036854775808, "expiresDate": null,
                "isTrialPeriod": false, "isInIntroOfferPeriod": true, "isUpgraded": false,
                "ownershipType": "FAMILY_SHARED", "environment": "Sandbox", "source": "notification_v2",
                "newField": 12.5, "price": 9223372036854775807},
              "revocations": [{"revocationDate": 0, "isFamilySharing": true, "extra": [[]]}],
              "account": null, "observedAt": 5 }
            """
        let expected = KnownTransaction(
            transaction: Transaction(
                transactionID: "t1", chainID: "o1", productID: "p",
                purchaseDate: Instant(millisecondsSince1970: .min), isInIntroOfferPeriod: true,
                ownershipType: .familyShared, environment: .sandbox, source: .notificationV2, price: .max),
            observedAt: Instant(millisecondsSince1970: 5), account: nil,
            revocations: [
                ObservedRevocation(
                    revocationDate: Instant(millisecondsSince1970: 0), revocationReason: nil, isFamilySharing: true,
                    lastObservedAt: nil)
            ])
        #expect(try StoredChainJSON.transaction(from: json) == expected)
        #expect(try Self.foundationValue(KnownTransaction.self, json) == expected)
    }

    @Test func readerReadsNamesWrittenWithEscapes() throws {
        let json =
            #"{"\u006bey": {"environment": "Production", "originalTransactionID": "\/1\ud83d\ude00"},"#
            + #" "bundleID": "b", "productType": "consumable", "product\u0049D": "p"}"#
        let chain = try StoredChainJSON.chain(from: json)
        #expect(chain.key == ChainKey(environment: .production, chainID: "/1😀"))
        #expect(chain.productID == "p")
        #expect(try Self.foundationValue(SubscriptionChain.self, json) == chain)
    }
}
