import Crypto
import Foundation
import Testing

@testable import SubLedgerStore

/// The canonical encoding of the ledger's hash chain (`LedgerChainHash`; migrations/0024_ledger_chain.sql writes the
/// same bytes in SQL): length-prefixed fields, NULL as length -1, numbers big-endian.
@Suite struct LedgerChainHashTests {
    @Test func eachFieldIsItsLengthThenItsBytes() {
        var fields = LedgerChainHash.Fields()
        fields.append(text: "ab")
        fields.append(text: nil)
        fields.append(int: 258)
        fields.append(int: -1)
        fields.append(text: "é")
        #expect(
            fields.bytes == [
                0, 0, 0, 2, 0x61, 0x62,
                0xff, 0xff, 0xff, 0xff,
                0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1, 2,
                0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0, 0, 0, 2, 0xc3, 0xa9,
            ])
    }

    @Test func anArrayIsACountAndItsElementsInsideOneField() {
        var fields = LedgerChainHash.Fields()
        fields.append(texts: ["pro", ""])
        fields.append(texts: [])
        fields.append(texts: nil)
        #expect(
            fields.bytes == [
                0, 0, 0, 15, 0, 0, 0, 2, 0, 0, 0, 3, 0x70, 0x72, 0x6f, 0, 0, 0, 0,
                0, 0, 0, 4, 0, 0, 0, 0,
                0xff, 0xff, 0xff, 0xff,
            ])
    }

    @Test func aUUIDIsItsSixteenBytes() throws {
        var fields = LedgerChainHash.Fields()
        fields.append(uuid: UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)))
        #expect(fields.bytes == [0, 0, 0, 16] + Array(0...15))
    }

    /// Fields are not ambiguous: moving a byte from one text field to the next changes the encoding.
    @Test func adjacentFieldsCannotTradeBytes() {
        var one = LedgerChainHash.Fields()
        one.append(text: "ab")
        one.append(text: "c")
        var other = LedgerChainHash.Fields()
        other.append(text: "a")
        other.append(text: "bc")
        #expect(one.bytes != other.bytes)
        #expect(
            LedgerChainHash.link(previous: LedgerChainHash.genesis, fields: one)
                != LedgerChainHash.link(previous: LedgerChainHash.genesis, fields: other))
    }

    @Test func aLinkHashesThePreviousHashThenTheFields() {
        var fields = LedgerChainHash.Fields()
        fields.append(int: 7)
        let first = LedgerChainHash.link(previous: LedgerChainHash.genesis, fields: fields)
        #expect(LedgerChainHash.genesis == [UInt8](repeating: 0, count: 32))
        #expect(first == Array(SHA256.hash(data: [UInt8](repeating: 0, count: 32) + fields.bytes)))
        let second = LedgerChainHash.link(previous: first, fields: fields)
        #expect(second == Array(SHA256.hash(data: first + fields.bytes)))
        #expect(second != first)
    }
}
