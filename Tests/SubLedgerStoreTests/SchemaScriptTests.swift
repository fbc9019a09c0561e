import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

@Suite struct SchemaScriptTests {
    @Test func splitsNumberedStepsAndDropsTheHeader() throws {
        let script = try SchemaScript(
            parsing: """
                -- a header comment
                -- step 1: first
                CREATE TABLE a (x int);

                -- step 2: second
                CREATE TABLE b (y int);
                """)
        #expect(script.steps.map(\.version) == [1, 2])
        #expect(script.steps.map(\.name) == ["first", "second"])
        #expect(script.steps[0].sql == "CREATE TABLE a (x int);")
        #expect(script.steps[1].sql == "CREATE TABLE b (y int);")
        #expect(script.latestVersion == 2)
    }

    @Test(arguments: [
        "-- step 2: starts at two\nSELECT 1;",
        "-- step 1: one\nSELECT 1;\n-- step 3: gap\nSELECT 3;",
        "-- step 1: one\nSELECT 1;\n-- step 1: again\nSELECT 1;",
        "SELECT 1; -- no steps at all",
    ])
    func refusesScriptsWhoseStepsAreNotNumberedOneByOne(text: String) {
        #expect(throws: MigrationError.self) { try SchemaScript(parsing: text) }
    }

    @Test func theShippedSchemaParses() throws {
        let script = try SchemaScript(parsing: BundledSchema.text())
        #expect(script.latestVersion >= 1)
        #expect(script.steps[0].sql.contains("CREATE TABLE ledger_entries"))
    }
}
