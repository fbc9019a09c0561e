import SubLedgerStore
import Testing

/// The consistency token's text: exactly PostgreSQL's `pg_lsn`, nothing else.
@Suite struct WALPositionTests {
    @Test func readsAndWritesPostgreSQLsText() {
        #expect(WALPosition(text: "0/0")?.value == 0)
        #expect(WALPosition(text: "16/B374D848")?.value == 0x16_B374_D848)
        #expect(WALPosition(text: "16/b374d848")?.description == "16/B374D848")
        #expect(WALPosition(text: "FFFFFFFF/FFFFFFFF")?.value == UInt64.max)
        #expect(WALPosition(0x1_0000_0001).description == "1/1")
    }

    @Test func refusesEverythingElse() {
        for text in [
            "", "/", "0/", "/0", "0/0/0", "123456789/0", "0/123456789", "g/0", "-1/0", "+1/0", " 0/0", "0/0 ", "0x1/0",
            "١/٢", "0/0\u{0}", String(repeating: "0", count: 100) + "/0",
        ] {
            #expect(WALPosition(text: text) == nil, "\(text)")
        }
    }
}
