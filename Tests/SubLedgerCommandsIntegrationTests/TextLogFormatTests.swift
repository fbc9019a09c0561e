import Logging
import Testing

@testable import SubLedgerCommands

/// `--log-format text`: `TextLogHandler` writes the lines swift-log's `StreamLogHandler` writes, for metadata set on
/// the logger (as Hummingbird sets a request's id), given with a record, changed and removed between records.
@Suite struct TextLogFormatTests {
    /// A stream that keeps what is written to it.
    struct Kept: TextOutputStream, Sendable {
        let lines: LogFormatTests.Lines
        mutating func write(_ string: String) { lines.append(string) }
    }

    /// The same records through `logger`: two at levels written, one below the level.
    static func writeRecords(_ logger: inout Logger) {
        logger.logLevel = .info
        logger[metadataKey: "hb.request.id"] = "0123456789abcdef"
        // No nested dictionary: swift-log writes one in its hash order, which two dictionaries need not share.
        logger[metadataKey: "roles"] = .array(["a", "b"])
        logger[metadataKey: "attempt"] = .stringConvertible(3)
        logger.info(
            "Request", metadata: ["hb.request.path": "/v1/accounts/a/entitlements", "hb.request.method": "GET"])
        logger.debug("not written")
        logger[metadataKey: "hb.request.id"] = nil
        logger.warning("pool exhausted")
    }

    /// A line without its leading timestamp (written by each handler at its own second).
    static func untimed(_ line: String) -> Substring {
        line.drop(while: { $0 != " " })
    }

    @Test func linesAreSwiftLogsOwnWithTheLoggersAndTheRecordsMetadata() {
        let ours = LogFormatTests.Lines()
        let theirs = LogFormatTests.Lines()
        var text = Logger(label: "subledger.test") { label in
            TextLogHandler(label: label) { label, provider in
                StreamLogHandler(label: label, stream: Kept(lines: ours), metadataProvider: provider)
            }
        }
        var stream = Logger(label: "subledger.test") { label in
            StreamLogHandler(label: label, stream: Kept(lines: theirs), metadataProvider: nil)
        }
        Self.writeRecords(&text)
        Self.writeRecords(&stream)

        #expect(ours.all.count == 2)
        #expect(ours.all.map(Self.untimed) == theirs.all.map(Self.untimed))
        #expect(ours.all.first?.contains("hb.request.id=0123456789abcdef") == true)
        #expect(ours.all.last?.contains("hb.request.id") == false)
    }
}
