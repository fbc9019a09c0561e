import Foundation
import SeededRandom
import SubLedgerCore
import Testing

/// SubLedger's one JSON writer: the API's responses and webhook events use its minimal escaping, the stored
/// chain columns its Foundation-compatible escaping, which must give the bytes `JSONEncoder` gives.
@Suite struct JSONWriterTests {
    /// Every ASCII character, and a few longer UTF-8 sequences (two, three and four bytes).
    static let alphabet: [Character] =
        (0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) } + ["é", "日", "€", "🎟", "\u{2028}"]

    static func randomStrings(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let length = Int.random(in: 0...24, using: &random)
            return String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
        }
    }

    @Test func minimalEscapingEscapesOnlyWhatJSONRequires() {
        var writer = JSONWriter()
        writer.string("a/b \"q\" \\ \n\r\t \u{8}\u{C}\u{1F} é")
        #expect(writer.text == #""a/b \"q\" \\ \n\r\t \u0008\u000c\u001f é""#)
    }

    @Test func foundationEscapingMatchesJSONEncoderByteForByte() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for text in Self.randomStrings(count: 500, seed: 20_261_124) {
            var writer = JSONWriter(escaping: .foundation)
            writer.beginArray()
            writer.string(text)
            writer.endArray()
            let expected = try encoder.encode([text])
            #expect(writer.bytes == Array(expected), "\(text.debugDescription)")
        }
    }

    @Test(arguments: [JSONWriter.Escaping.minimal, .foundation])
    func everyStringReadsBackAsWritten(_ escaping: JSONWriter.Escaping) throws {
        let texts = Self.randomStrings(count: 500, seed: 7)
        var writer = JSONWriter(escaping: escaping)
        writer.beginObject()
        for (index, text) in texts.enumerated() {
            writer.escapedKey("k\(index)|\(text)")
            writer.string(text)
        }
        writer.endObject()
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(writer.bytes))
        #expect(decoded.count == texts.count)
        for (index, text) in texts.enumerated() {
            #expect(decoded["k\(index)|\(text)"] == text)
        }
    }

    @Test func integersCoverTheWholeRange() {
        var writer = JSONWriter()
        writer.beginArray()
        for value: Int64 in [0, 7, -7, 10, -10, 1_000_000_007, .max, .min] { writer.integer(value) }
        writer.endArray()
        #expect(writer.text == "[0,7,-7,10,-10,1000000007,9223372036854775807,-9223372036854775808]")
    }

    @Test func commasGoBetweenMembersAndElementsAtEveryDepth() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.null()
        writer.bool(false)
        writer.endArray()
        writer.key("b")
        writer.beginObject()
        writer.key("c")
        writer.bool(true)
        writer.key("d")
        writer.time(Instant(millisecondsSince1970: 1_795_000_000_123))
        writer.endObject()
        writer.key("e")
        writer.string("")
        writer.endObject()
        #expect(writer.text == #"{"a":[{},[],null,false],"b":{"c":true,"d":"2026-11-18T11:06:40.123Z"},"e":""}"#)
    }
}
