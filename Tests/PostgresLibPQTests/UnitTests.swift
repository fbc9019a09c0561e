import Foundation
import Testing

@testable import PostgresLibPQ

@Suite struct PostgresTimestampTests {
    @Test func parsesServerOutputWithFractionsAndOffsets() throws {
        let cases: [(String, Int64)] = [
            ("2024-01-02 03:04:05.123+00", 1_704_164_645_123_000),
            ("2024-01-02 03:04:05+00", 1_704_164_645_000_000),
            ("2024-01-02 08:34:05.123456+05:30", 1_704_164_645_123_456),
            ("2024-01-01 20:04:05.5-07", 1_704_164_645_500_000),
            ("1970-01-01 00:00:00+00", 0),
            ("1969-12-31 23:59:59.999999+00", -1),
            ("1850-01-01 00:19:32+00:19:32", -3_786_825_600_000_000),
            ("2024-01-02T03:04:05Z", 1_704_164_645_000_000),
        ]
        for (text, expected) in cases {
            let parsed = try #require(PostgresTimestamp(postgresText: Array(text.utf8)), "\(text)")
            #expect(parsed.microsecondsSince1970 == expected, "\(text)")
        }
    }

    @Test func refusesMalformedAndInfiniteValues() {
        for text in [
            "infinity", "-infinity", "", "2024-13-01 00:00:00+00", "2024-01-02 03:04:05", "2024-01-02 03:04:05.+00",
            "2024-01-02 03:04:05+00 AD", "99999999-01-01 00:00:00+00",
        ] {
            #expect(PostgresTimestamp(postgresText: Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func formatsInUTCAndRoundTrips() throws {
        #expect(
            PostgresTimestamp(millisecondsSince1970: 1_704_164_645_123).postgresText == "2024-01-02 03:04:05.123000+00")
        #expect(PostgresTimestamp(microsecondsSince1970: -1).postgresText == "1969-12-31 23:59:59.999999+00")
        #expect(
            PostgresTimestamp(microsecondsSince1970: -62_167_219_200_000_000).postgresText
                == "0001-01-01 00:00:00+00 BC")
        for micros: Int64 in [0, -1, 1, 1_704_164_645_123_456, -62_167_219_200_000_000, 253_402_300_799_999_999] {
            let timestamp = PostgresTimestamp(microsecondsSince1970: micros)
            #expect(PostgresTimestamp(postgresText: Array(timestamp.postgresText.utf8)) == timestamp)
        }
    }

    @Test func millisecondsAndDatesConvertExactly() {
        let timestamp = PostgresTimestamp(millisecondsSince1970: -1)
        #expect(timestamp.microsecondsSince1970 == -1_000)
        #expect(timestamp.millisecondsSince1970 == -1)
        #expect(
            PostgresTimestamp(Date(timeIntervalSince1970: 1_700_000_000.123)).millisecondsSince1970 == 1_700_000_000_123
        )
    }
}

@Suite struct PostgresConfigurationTests {
    @Test func parsesURLWithUnixSocketHostAndDefaultsApplicationName() throws {
        let configuration = try PostgresConfiguration(
            connectionString: "postgresql://ledger@/subledger?host=/var/run/postgresql&sslmode=disable",
            defaultApplicationName: "ledger-service")
        #expect(configuration.host == "/var/run/postgresql")
        #expect(configuration.user == "ledger")
        #expect(configuration.database == "subledger")
        #expect(configuration.sslMode == "disable")
        #expect(configuration.applicationName == "ledger-service")
        #expect(configuration.parameters["connect_timeout"] == "10")
        // The driver names no application of its own.
        #expect(try PostgresConfiguration(connectionString: "host=db").applicationName == nil)
    }

    @Test func keepsExplicitSettingsFromKeyValueStrings() throws {
        let configuration = try PostgresConfiguration(
            connectionString:
                "host=db.internal port=6432 dbname=ledger application_name=ledger-worker connect_timeout=3",
            defaultApplicationName: "ledger-service")
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == "6432")
        #expect(configuration.applicationName == "ledger-worker")
        #expect(configuration.parameters["connect_timeout"] == "3")
    }

    @Test func descriptionHidesThePassword() throws {
        let fromURL = try PostgresConfiguration(connectionString: "postgresql://ledger:t0p-s3cret@db/ledger")
        #expect(!fromURL.description.contains("t0p-s3cret"))
        #expect(fromURL.description.contains("password=<redacted>"))
        let fromKeywords = try PostgresConfiguration(connectionString: "host=db password='t0p s3cret' user=ledger")
        #expect(!fromKeywords.description.contains("t0p"))
    }

    @Test func invalidConnectionStringErrorHidesThePassword() {
        do {
            _ = try PostgresConfiguration(connectionString: "postgresql://ledger:t0p-s3cret@db/ledger?bogus_option=1")
            Issue.record("unknown URI parameter should be refused")
        } catch let error as PostgresError {
            #expect(error.kind == .invalidConfiguration)
            #expect(!error.description.contains("t0p-s3cret"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

}

@Suite struct EncodingTests {
    @Test func copyEscapingProtectsDelimiters() {
        var buffer = [UInt8]()
        #expect(PostgresConnection.appendCopyEscaped("a\tb\nc\rd\\e", to: &buffer))
        #expect(String(decoding: buffer, as: UTF8.self) == "a\\tb\\nc\\rd\\\\e")
        #expect(!PostgresConnection.appendCopyEscaped("nul\u{0}", to: &buffer))
    }

    @Test func byteaTextDecodesHexAndEscapeFormats() {
        #expect(ByteaText.decode(ArraySlice(Array("\\x00ff10".utf8))) == [0, 255, 16])
        #expect(ByteaText.decode(ArraySlice(Array("\\xABcd".utf8))) == [0xAB, 0xCD])
        #expect(ByteaText.decode(ArraySlice(Array("\\x0".utf8))) == nil)
        #expect(ByteaText.decode(ArraySlice(Array("\\xzz".utf8))) == nil)
        #expect(ByteaText.decode(ArraySlice(Array("ab\\\\c\\001".utf8))) == [97, 98, 92, 99, 1])
        #expect(ByteaText.decode(ArraySlice(Array("bad\\9".utf8))) == nil)
    }

    @Test func valueDescriptionNeverShowsContent() {
        let value: PostgresValue = .text("card-4111-1111")
        #expect(!value.description.contains("4111"))
    }

    @Test func identifiersAreQuoted() throws {
        #expect(try PostgresConnection.quoteIdentifier("Ledger \"Events\"") == "\"Ledger \"\"Events\"\"\"")
        #expect(throws: PostgresError.self) { try PostgresConnection.quoteIdentifier("") }
    }

    @Test func retryDelayGrowsAndIsCapped() {
        for attempt in 1...20 {
            let delay = PostgresPool.retryDelay(afterAttempt: attempt)
            #expect((Duration.milliseconds(5)...Duration.seconds(1)).contains(delay), "attempt \(attempt): \(delay)")
        }
    }
}

/// A timestamp conversion must never end the process, whatever milliseconds reach it.
@Suite struct PostgresTimestampExtremesTests {
    @Test func millisecondsBeyondMicrosecondRangeClampInsteadOfTrapping() {
        #expect(PostgresTimestamp(millisecondsSince1970: .max).microsecondsSince1970 == .max)
        #expect(PostgresTimestamp(millisecondsSince1970: .min).microsecondsSince1970 == .min)
        #expect(PostgresTimestamp(millisecondsSince1970: 9_223_372_036_854_776).microsecondsSince1970 == .max)
        #expect(
            PostgresTimestamp(millisecondsSince1970: 9_223_372_036_854_775).microsecondsSince1970
                == 9_223_372_036_854_775_000)
    }

    @Test(arguments: [Int64.min, Int64.min + 1, -1, 0, Int64.max])
    func everyMicrosecondCountHasTextAndADate(microseconds: Int64) {
        let timestamp = PostgresTimestamp(microsecondsSince1970: microseconds)
        #expect(!timestamp.postgresText.isEmpty)
        #expect(timestamp.date.timeIntervalSince1970.isFinite)
        #expect(!PostgresValue.timestamptz(millisecondsSince1970: microseconds).description.isEmpty)
    }

    @Test func theLastAcceptedAppleInstantRoundTripsThroughText() throws {
        let timestamp = PostgresTimestamp(millisecondsSince1970: 253_402_300_799_999)
        #expect(timestamp.postgresText == "9999-12-31 23:59:59.999000+00")
        let parsed = try #require(PostgresTimestamp(postgresText: Array(timestamp.postgresText.utf8)))
        #expect(parsed == timestamp)
    }
}
