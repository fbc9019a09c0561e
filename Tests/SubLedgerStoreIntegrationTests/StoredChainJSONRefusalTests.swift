import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerStore

/// A stored chain's JSON that is malformed, of the wrong shape or out of range is a `corruptRow` error, never a
/// crash or a wrong value; and the reader accepts nothing Foundation's decoder refused.
@Suite struct StoredChainJSONRefusalTests {
    static let revocation = #"{"isFamilySharing": false, "revocationDate": 1}"#

    static func transaction(_ members: String) -> String {
        #"{"revocations": [], "transaction": {"#
            + #""environment": "Production", "isInIntroOfferPeriod": false, "isTrialPeriod": false, "isUpgraded": false,"#
            + #" "originalTransactionID": "o", "ownershipType": "PURCHASED", "productID": "p", "purchaseDate": 1,"#
            + #" "quantity": 1, "source": "server_api", "transactionID": "t"\#(members)}}"#
    }

    static func isCorruptRow(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as StoreError {
            return error.code == .corruptRow
        } catch {
            return false
        }
    }

    @Test func theBaseTextsRead() throws {
        #expect(try StoredChainJSON.transaction(from: Self.transaction("")).transaction.quantity == 1)
        #expect(
            try StoredChainJSON.transaction(from: Self.transaction(#", "price": -9223372036854775808"#))
                .transaction.price == .min)
        #expect(try StoredChainJSON.bindings(from: #"[[0, null, "a", "purchase", 5, null]]"#).count == 1)
        #expect(
            try StoredChainJSON.bindings(from: #"[[0, null, "a", "purchase", 5], [1, "a", "b", "x", 6, "t", 9]]"#)
                .map(\.transactionID) == [nil, "t"])
    }

    static let malformedTransactions: [String] = [
        "", " ", "null", "[]", "{}", "{", "}", "1", #""x""#,
        transaction("") + " x", transaction("") + "{}", transaction(","), transaction(", "), transaction(#", "price""#),
        transaction(#", "price": "#), transaction(#", "price": 1.0"#), transaction(#", "price": 1e3"#),
        transaction(#", "price": 01"#), transaction(#", "price": -"#), transaction(#", "price": +1"#),
        transaction(#", "price": 9223372036854775808"#), transaction(#", "price": -9223372036854775809"#),
        transaction(#", "price": 99999999999999999999999"#), transaction(#", "price": "1""#),
        transaction(#", "price": true"#), transaction(#", "price": nul"#), transaction(#", "price": NaN"#),
        transaction(#", "quantity": 2"#), transaction(#", "currency": 1"#), transaction(#", "currency": "\x""#),
        transaction(#", "currency": "\u12""#), transaction(#", "currency": "\uD800""#),
        transaction(#", "currency": "\uDC00x""#), transaction(#", "currency": "\uD800\u0041""#),
        transaction(#", "currency": "\ud800\\""#), transaction(", \"currency\": \"a\u{01}b\""),
        transaction(", \"currency\": \"a\nb\""), transaction(#", "currency": "unterminated"#),
        transaction(#", currency: "x""#), transaction(#", 'currency': "x""#), transaction(#", "currency" "x""#),
        transaction(#", "future": [1, 2,]"#), transaction(#", "future": {"a" 1}"#), transaction(#", "future": 1."#),
        transaction(#", "future": .5"#), transaction(#", "future": 1e"#), transaction(#", "future": tru"#),
        transaction(#", "future": ["#), transaction(#", "future": "\q""#),
        transaction(", \"future\": " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)),
        transaction(#", "isUpgraded": null"#), transaction(#", "isUpgraded": 0"#),
        transaction(#", "ownershipType": "purchased""#), transaction(#", "source": null"#),
        transaction(#", "environment": "production""#),
        transaction("").replacingOccurrences(of: #"{"revocations""#, with: #"{"account": "not valid!", "revocations""#),
        transaction("").replacingOccurrences(of: #"{"revocations""#, with: #"{"account": "", "revocations""#),
        transaction("").replacingOccurrences(of: #"{"revocations""#, with: #"{"account": 1, "revocations""#),
        #"{"transaction": {}, "revocations": []}"#,
        #"{"revocations": null, "transaction": {}}"#,
        transaction("").replacingOccurrences(of: #""revocations": []"#, with: #""revocations": [{}]"#),
        transaction("").replacingOccurrences(of: #""revocations": []"#, with: #""revocations": [\#(revocation),]"#),
        transaction("").replacingOccurrences(of: #""revocations": [], "#, with: ""),
        transaction("").replacingOccurrences(of: #""quantity": 1, "#, with: ""),
        transaction("").replacingOccurrences(of: #""quantity": 1, "#, with: #""quantity": 1, "quantity": 1, "#),
        transaction("").replacingOccurrences(of: #"{"revocations""#, with: #"{"revocations": [], "revocations""#),
    ]

    @Test(arguments: malformedTransactions)
    func aMalformedTransactionIsACorruptRow(json: String) {
        #expect(Self.isCorruptRow { _ = try StoredChainJSON.transaction(from: json) })
        if !json.allSatisfy(\.isWhitespace) {  // `[ ]` is an empty list, not a malformed one
            #expect(Self.isCorruptRow { _ = try StoredChainJSON.transactions(from: "[\(json)]") })
        }
    }

    @Test(arguments: [
        "", "[", "[[]]", "[[0]]", #"[[0, null]]"#, #"[[0, null, "a"]]"#, #"[[0, null, "a", "r"]]"#,
        #"[[0, null, "a", "r", 1.5]]"#, #"[[0, null, null, "r", 1]]"#, #"[["0", null, "a", "r", 1]]"#,
        #"[[0, 1, "a", "r", 1]]"#, #"[[0, null, "a", "r", 1, 2]]"#, #"[[0, null, "a", "r", 1, null, ]]"#,
        #"[[0, null, "a", "r", 1], ]"#, #"[[0, null, "a", "r", 1]] ]"#, "{}",
    ])
    func aMalformedBindingIsACorruptRow(json: String) {
        #expect(Self.isCorruptRow { _ = try StoredChainJSON.bindings(from: json) })
    }

    @Test(arguments: [
        #"{"bundleID": "b", "key": {"environment": "Production"}, "productID": "p", "productType": "consumable"}"#,
        #"{"bundleID": "b", "key": {"environment": "Production", "originalTransactionID": "1"}, "productID": "p"}"#,
        #"{"bundleID": "b", "key": null, "productID": "p", "productType": "consumable"}"#,
        #"{"bundleID": "b", "key": {"environment": "Production", "originalTransactionID": "1"}, "productID": "p","#
            + #" "productType": "consumable", "renewalInfo": {}}"#,
        #"{"bundleID": "b", "key": {"environment": "Production", "originalTransactionID": "1"}, "productID": "p","#
            + #" "productType": "subscription"}"#,
    ])
    func aMalformedChainIsACorruptRow(json: String) {
        #expect(Self.isCorruptRow { _ = try StoredChainJSON.chain(from: json) })
    }

    /// Truncations, and single-byte changes, insertions and deletions of Foundation's output: every truncation
    /// is refused, and whatever the reader accepts, Foundation's decoder accepts as the same value.
    @Test func damagedTextsAreRefusedOrReadAsFoundationReadsThem() throws {
        var values = StoredChainValues(seed: 0xC0DEC_0201, allowsNUL: true)
        let interesting = Array(#"{}[],:"\ 0-.e+tfnul19aZ/"#.utf8) + [0x01, 0x0A, 0xC3, 0xA9, 0xFF]
        var refused = 0
        var accepted = 0
        for _ in 0..<150 {
            let known = values.knownTransaction()
            let bytes = Array(try StoredChainJSONAgreementTests.foundationJSON(known).utf8)
            let cut = Int.random(in: 0..<bytes.count, using: &values.random)
            #expect(
                Self.isCorruptRow {
                    _ = try StoredChainJSON.transaction(from: String(decoding: bytes[..<cut], as: UTF8.self))
                })
            for _ in 0..<20 {
                var damaged = bytes
                let position = Int.random(in: 0..<damaged.count, using: &values.random)
                switch Int.random(in: 0..<3, using: &values.random) {
                case 0: damaged[position] = interesting.randomElement(using: &values.random)!
                case 1: damaged.insert(interesting.randomElement(using: &values.random)!, at: position)
                default: damaged.remove(at: position)
                }
                guard let text = String(validating: damaged, as: UTF8.self) else { continue }
                let foundation = try? JSONDecoder().decode(KnownTransaction.self, from: Data(damaged))
                do {
                    let read = try StoredChainJSON.transaction(from: text)
                    accepted += 1
                    #expect(foundation == read, "\(text)")
                } catch let error as StoreError {
                    refused += 1
                    #expect(error.code == .corruptRow)
                }
            }
        }
        #expect(refused > 500)
        #expect(accepted > 50)
    }
}
