import Foundation
import Logging
import Testing

@testable import SubLedgerCommands

/// `--log-format json`: one JSON object a line, every field a string, escaped as JSON requires.
@Suite struct LogFormatTests {
    /// The lines a logger with a `JSONLogHandler` writes, its clock fixed at `at`.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var written: [String] = []
        func append(_ line: String) { lock.withLock { written.append(line) } }
        var all: [String] { lock.withLock { written } }
    }

    static func logger(_ lines: Lines, at instant: Date, level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "subledger.test") { label in
            JSONLogHandler(label: label, now: { instant }, write: lines.append)
        }
        logger.logLevel = level
        return logger
    }

    static func object(_ line: String) throws -> [String: Any] {
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().contains("\n") == false, "one line per record: \(line)")
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(value as? [String: Any])
    }

    @Test func eachRecordIsOneJSONObjectWithItsTimestampLevelLabelMessageAndMetadata() throws {
        let lines = Lines()
        // 2026-11-26T04:30:05.123Z
        var logger = Self.logger(lines, at: Date(timeIntervalSince1970: 1_795_667_405.123_4))
        logger[metadataKey: "hb.request.id"] = "3f2a-0001"
        logger[metadataKey: "account_id"] = "alice"
        logger.info(
            "Request",
            metadata: [
                "hb.request.path": "/v1/receipts", "attempt": .stringConvertible(2),
                "apple": ["status": "21007", "environment": "Sandbox"], "ids": ["a", "b"],
                "level": "a metadata key named like a field",
            ])
        logger.debug("below the level: not written")

        #expect(lines.all.count == 1)
        let record = try Self.object(try #require(lines.all.first))
        #expect(record["timestamp"] as? String == "2026-11-26T04:30:05.123Z")
        #expect(record["level"] as? String == "info")
        #expect(record["label"] as? String == "subledger.test")
        #expect(record["message"] as? String == "Request")
        #expect(record["request_id"] as? String == "3f2a-0001")
        #expect(record["hb.request.id"] == nil, "the request id is written once, as request_id")
        #expect(record["account_id"] as? String == "alice")
        #expect(record["hb.request.path"] as? String == "/v1/receipts")
        #expect(record["attempt"] as? String == "2")
        #expect(record["apple.status"] as? String == "21007")
        #expect(record["apple.environment"] as? String == "Sandbox")
        #expect(record["ids"] as? String == #"["a", "b"]"#)
        #expect(record["metadata.level"] as? String == "a metadata key named like a field")
        #expect(record.values.allSatisfy { $0 is String }, "every field is a string: \(record)")
        #expect(record["trace_id"] == nil)
    }

    @Test func quotesBackslashesNewlinesControlCharactersAndNonASCIIRoundTrip() throws {
        let lines = Lines()
        let logger = Self.logger(lines, at: Date(timeIntervalSince1970: 0))
        let message = "say \"hi\"\\ \nnext line\r\ttab \u{0}\u{1}\u{8}\u{c}\u{1b}\u{7f} café 日本 🎉 \u{2028}"
        logger.warning("\(message)", metadata: ["key \"quoted\"\n": "value\u{1f}"])

        let line = try #require(lines.all.first)
        #expect(line.utf8.allSatisfy { $0 >= 0x20 || $0 == 0x0A }, "no raw control byte: \(line)")
        #expect(line.contains(#"\u0000\u0001\b\f\u001b\u007f"#))
        let record = try Self.object(line)
        #expect(record["message"] as? String == message)
        #expect(record["key \"quoted\"\n"] as? String == "value\u{1f}")
        #expect(record["timestamp"] as? String == "1970-01-01T00:00:00.000Z")
        #expect(record["level"] as? String == "warning")
    }

    @Test func timestampsAreRFC3339InUTCWithMilliseconds() {
        #expect(JSONLogHandler.rfc3339(Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29T00:00:00.500Z")
        #expect(JSONLogHandler.rfc3339(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
    }

    /// `--log-format` and `SUBLEDGER_LOG_FORMAT`: text by default, json when asked, anything else refused with a
    /// message naming the option and the formats.
    @Test func theLogFormatOptionParsesAndABadValueIsRefused() throws {
        func format(_ arguments: [String], _ environment: [String: String] = [:]) throws -> LogFormat {
            let command = try SubLedgerCommand.parseAsRoot(["serve"] + arguments)
            return try #require(command as? ServeCommand).database.logFormat(environment: environment)
        }
        #expect(try format([]) == .text)
        #expect(try format(["--log-format", "json"]) == .json)
        #expect(try format(["--log-format", "text"], ["SUBLEDGER_LOG_FORMAT": "json"]) == .text)
        #expect(try format([], ["SUBLEDGER_LOG_FORMAT": "JSON"]) == .json)
        let poll = try #require(try SubLedgerCommand.parseAsRoot(["poll", "--log-format", "json"]) as? PollCommand)
        #expect(try poll.database.logFormat(environment: [:]) == .json)

        for (arguments, environment) in [(["--log-format", "yaml"], [:]), ([], ["SUBLEDGER_LOG_FORMAT": "logfmt"])] {
            let result = ServeOptionsCommandTests.serve(arguments, environment: environment)
            #expect(result.status != 0)
            #expect(result.output.contains("unknown log format"), "\(result.output)")
            #expect(result.output.contains("use one of text, json"), "\(result.output)")
        }
    }
}
