import SubLedgerStore
import Testing

/// `SQLStatements.split`: a migration step's statements, split where PostgreSQL would end them.
@Suite struct SQLStatementsTests {
    @Test func statementsEndAtSemicolonsOutsideQuotesAndComments() {
        let script = """
            -- a comment; not a statement
            CREATE TABLE t (a text DEFAULT 'x;y', "b;c" int);
            /* a block; /* nested; */ still the comment; */
            COMMENT ON TABLE t IS 'it''s; fine';
            SELECT E'a\\';b', $1 FROM t;
            """
        #expect(
            SQLStatements.split(script) == [
                "-- a comment; not a statement\nCREATE TABLE t (a text DEFAULT 'x;y', \"b;c\" int);",
                "/* a block; /* nested; */ still the comment; */\nCOMMENT ON TABLE t IS 'it''s; fine';",
                "SELECT E'a\\';b', $1 FROM t;",
            ])
    }

    @Test func functionBodiesAreOneStatementWhateverTheirTag() {
        let script = """
            CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$
            BEGIN PERFORM 1; PERFORM 'x;y'; END $$;
            CREATE FUNCTION g() RETURNS void LANGUAGE plpgsql AS $body$
            BEGIN EXECUTE $q$SELECT 1; SELECT $$2$$$q$; END
            $body$;
            DO $$ BEGIN NULL; END $$
            """
        #expect(
            SQLStatements.split(script) == [
                "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$\nBEGIN PERFORM 1; PERFORM 'x;y'; END $$;",
                "CREATE FUNCTION g() RETURNS void LANGUAGE plpgsql AS $body$\nBEGIN EXECUTE $q$SELECT 1; SELECT $$2$$$q$; END\n$body$;",
                "DO $$ BEGIN NULL; END $$",
            ])
    }

    @Test func aDollarQuoteTagIsOneAndAParameterIsNone() {
        #expect(
            SQLStatements.split("SELECT $1, a$b FROM x; SELECT $tag$;$tag$;")
                == ["SELECT $1, a$b FROM x;", "SELECT $tag$;$tag$;"])
    }

    @Test func semicolonsInsideParenthesesDoNotEndAStatement() {
        #expect(
            SQLStatements.split("CREATE RULE r AS ON INSERT TO t DO ALSO (SELECT 1; SELECT 2);") == [
                "CREATE RULE r AS ON INSERT TO t DO ALSO (SELECT 1; SELECT 2);"
            ])
    }

    @Test func commentsAndWhitespaceAloneAreNoStatement() {
        #expect(SQLStatements.split("") == [])
        #expect(SQLStatements.split("  -- only a comment\n/* and ; this */\n ; ;") == [])
        #expect(SQLStatements.split("SELECT 1 -- no semicolon at the end") == ["SELECT 1 -- no semicolon at the end"])
    }

    @Test func unterminatedQuotesRunToTheEnd() {
        #expect(SQLStatements.split("SELECT 'open; still open") == ["SELECT 'open; still open"])
        #expect(SQLStatements.split("SELECT $$ open; body") == ["SELECT $$ open; body"])
        #expect(SQLStatements.split("SELECT 1 /* open; comment") == ["SELECT 1 /* open; comment"])
    }

    @Test func everyBundledStepSplitsIntoStatementsThatHoldAllItsText() throws {
        for step in try BundledMigrations.script().steps {
            let statements = SQLStatements.split(step.sql)
            #expect(!statements.isEmpty, "step \(step.version)")
            // Nothing but whitespace is dropped between the statements, except a trailing comment.
            let kept = statements.joined().filter { !$0.isWhitespace }
            let all = step.sql.filter { !$0.isWhitespace }
            #expect(all.hasPrefix(kept), "step \(step.version)")
        }
    }
}
