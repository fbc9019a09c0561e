import Testing

@testable import SubLedgerUseCases

/// Reading the import file: the header, RFC 4180 quoting, bounds, and bad rows reported by line number.
@Suite struct ImportFileTests {
    static let header = "account_id,original_transaction_id,receipt_data,environment\n"

    static func read(_ text: String) throws -> ImportFile { try ImportFile(bytes: Array(text.utf8)) }

    @Test func readsRowsInAnyColumnOrderWithQuotesAndCRLF() throws {
        let file = try Self.read(
            "environment,account_id,receipt_data,original_transaction_id\r\n"
                + "Sandbox,alice,,2000000000000001\r\n"
                + "\"production\",\"bob\",,\"2000000000000002\"\r\n"
                + "\r\n"
                + ",carol,\"TUlJ\",\n")
        #expect(file.refused.isEmpty)
        #expect(file.rows.map(\.lineNumber) == [2, 3, 5])
        #expect(file.rows[0].source == .chainID("2000000000000001"))
        #expect(file.rows[0].environment == .sandbox)
        #expect(file.rows[1].environment == .production)
        #expect(file.rows[2].source == .receipt("TUlJ"))
        #expect(file.rows[2].environment == nil)
        #expect(file.digest.count == 64)
    }

    @Test func badRowsAreRefusedWithTheirLineNumberAndTheOthersAreRead() throws {
        let file = try Self.read(
            Self.header
                + "alice,2000000000000001,,Sandbox\n"  // 2: fine
                + "bad account!,1,,Sandbox\n"  // 3
                + "bob,12ab,,Sandbox\n"  // 4
                + "carol,1,,Staging\n"  // 5
                + "dave,,,Sandbox\n"  // 6
                + "erin,1,TUlJ,Sandbox\n"  // 7
                + "frank,1,,\n"  // 8: an id needs its environment
                + "gina,1,Sandbox\n"  // 9: three columns
                + "hal,\"1\"x,,Sandbox\n"  // 10
                + "ivan,\"multi\nline,,Sandbox\n"  // 11 (unclosed quote runs to the end)
        )
        #expect(file.rows.map(\.lineNumber) == [2])
        #expect(file.refused.map(\.lineNumber) == [3, 4, 5, 6, 7, 8, 9, 10, 11])
        #expect(
            file.refused.map(\.reason.code) == [
                "invalid_account_id", "invalid_original_transaction_id", "invalid_environment", "needs_one_source",
                "needs_one_source", "invalid_environment", "wrong_column_count", "malformed_csv", "malformed_csv",
            ])
        #expect(file.totalRows == 10)
    }

    @Test func nulAndInvalidUTF8AreRefusedPerRow() throws {
        var bytes = Array((Self.header + "alice,1,,Sandbox\n").utf8)
        bytes += Array("bob,2,,Sand".utf8) + [0] + Array("box\n".utf8)
        bytes += Array("carol,3,,".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        bytes += Array("dave,4,,Sandbox\n".utf8)
        let file = try ImportFile(bytes: bytes)
        #expect(file.rows.map(\.lineNumber) == [2, 5])
        #expect(file.refused.map(\.reason) == [.nulCharacter, .invalidUTF8])
        #expect(file.refused.map(\.lineNumber) == [3, 4])
    }

    @Test func aRepeatedRowIsRefusedNamingTheFirst() throws {
        let file = try Self.read(Self.header + "alice,1,,Sandbox\nbob,2,,Sandbox\nalice,1,,sandbox\n")
        #expect(file.refused == [ImportRowError(4, .duplicateRow(2))])
    }

    @Test func aFieldLongerThanTheBoundIsRefused() throws {
        let long = String(repeating: "A", count: ImportRow.maximumReceiptBytes + 1)
        let file = try Self.read(Self.header + "alice,,\(long),Sandbox\nbob,1,,Sandbox\n")
        #expect(file.refused.map(\.reason) == [.fieldTooLong(ImportRow.maximumReceiptBytes)])
        #expect(file.rows.map(\.lineNumber) == [3])
    }

    @Test func aFileWithoutTheHeaderIsRefusedAsAWhole() {
        for text in [
            "", "alice,1,,Sandbox\n", "account_id,original_transaction_id,environment\n",
            "account_id,original_transaction_id,receipt_data,environment,extra\n",
            "account_id,account_id,receipt_data,environment\n",
        ] {
            #expect(throws: ImportError.self) { try Self.read(text) }
        }
    }

    @Test func progressShowsABarOnATerminalAndLinesOtherwise() {
        var progress = ImportProgress(totalRows: 200)
        progress.rowsOK = 50
        progress.rowsSkipped = 40
        progress.rowsFailed = 10
        progress.elapsedSeconds = 6
        #expect(progress.rate == 10)
        #expect(progress.etaSeconds == 10)
        let bar = ImportProgressPrinter.bar(progress, width: 10)
        #expect(bar.hasPrefix("[#####.....]  50% 100/200 rows  10.0 rows/s  ETA 0:10"))
        #expect(
            ImportProgressPrinter.line(progress)
                == "import: 100/200 rows (50%), 10.0 rows/s, ETA 0:10, 50 ok, 40 skipped, 10 failed")
        #expect(ImportProgressPrinter.clock(3_725) == "1:02:05")
        #expect(ImportProgressPrinter.clock(nil) == "--:--")
    }
}
