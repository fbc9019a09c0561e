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

    @Test func theShippedMigrationsParse() throws {
        let script = try BundledMigrations.script()
        #expect(script.latestVersion >= 1)
        #expect(script.steps[0].sql.contains("CREATE TABLE ledger_entries"))
    }

    @Test func aMigrationFileIsOneStepNumberedAsItsName() throws {
        let script = try SchemaScript(migrationFiles: [
            ("0001_one.sql", "-- step 1: one\nSELECT 1;\n"), ("0002_two.sql", "-- step 2: two\nSELECT 2;\n"),
        ])
        #expect(script.steps.map(\.name) == ["one", "two"])
        #expect(script.steps.map(\.sql) == ["SELECT 1;", "SELECT 2;"])
        #expect(
            try SchemaScript(migrationFiles: [("0001_one.sql", "-- step 1: one\nSELECT 1;")]).steps
                == SchemaScript(parsing: "-- header\n-- step 1: one\n\nSELECT 1;\n\n").steps)
    }

    @Test(arguments: [
        [("0002_one.sql", "-- step 1: one\nSELECT 1;")],  // the name's number is not the header's
        [("one.sql", "-- step 1: one\nSELECT 1;")],  // no number
        [("0001_two.sql", "-- step 1: one\nSELECT 1;\n-- step 2: two\nSELECT 2;")],  // two steps in one file
        [("0001_one.sql", "-- step 1: one\nSELECT 1;"), ("0003_three.sql", "-- step 3: three\nSELECT 3;")],  // a gap
        [("0001_one.sql", "SELECT 1;")],  // no header
    ])
    func refusesMisnamedOrMisnumberedMigrationFiles(files: [(String, String)]) {
        #expect(throws: MigrationError.self) {
            try SchemaScript(migrationFiles: files.map { (name: $0.0, text: $0.1) })
        }
    }
}
