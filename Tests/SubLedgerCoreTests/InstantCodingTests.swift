import Foundation
import SubLedgerCore
import Testing

/// An instant's `Codable` form: the millisecond count by default, RFC 3339 text when the coder's `userInfo` asks
/// for it with `Instant.rfc3339CodingKey` (the reports' JSON).
@Suite struct InstantCodingTests {
    struct Event: Codable, Equatable {
        var at: Instant
        var until: Instant?
        var moments: [Instant]
    }

    static let event = Event(
        at: Instant(millisecondsSince1970: 1_735_689_600_999),
        until: Instant(millisecondsSince1970: -1),
        moments: [Instant(millisecondsSince1970: 0)])

    @Test func byDefaultAnInstantIsItsMillisecondCount() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(Self.event), as: UTF8.self)
        #expect(json == #"{"at":1735689600999,"moments":[0],"until":-1}"#)
        #expect(try JSONDecoder().decode(Event.self, from: Data(json.utf8)) == Self.event)
    }

    @Test func askedForRFC3339AnInstantIsTextAtThePrecisionAskedFor() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.userInfo[Instant.rfc3339CodingKey] = RFC3339.Precision.seconds
        let json = String(decoding: try encoder.encode(Self.event), as: UTF8.self)
        #expect(
            json
                == #"{"at":"2025-01-01T00:00:00Z","moments":["1970-01-01T00:00:00Z"],"until":"1969-12-31T23:59:59Z"}"#)
        encoder.userInfo[Instant.rfc3339CodingKey] = RFC3339.Precision.milliseconds
        let exact = try encoder.encode(Self.event)
        #expect(String(decoding: exact, as: UTF8.self).contains(#""at":"2025-01-01T00:00:00.999Z""#))
        let decoder = JSONDecoder()
        decoder.userInfo[Instant.rfc3339CodingKey] = RFC3339.Precision.milliseconds
        #expect(try decoder.decode(Event.self, from: exact) == Self.event)
    }

    @Test func askedForRFC3339OtherTextIsRefused() {
        let decoder = JSONDecoder()
        decoder.userInfo[Instant.rfc3339CodingKey] = RFC3339.Precision.seconds
        #expect(throws: DecodingError.self) {
            try decoder.decode(Event.self, from: Data(#"{"at":"yesterday","moments":[]}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try decoder.decode(Event.self, from: Data(#"{"at":1735689600999,"moments":[]}"#.utf8))
        }
    }
}
