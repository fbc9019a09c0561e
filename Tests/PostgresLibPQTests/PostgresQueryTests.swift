import Testing

@testable import PostgresLibPQ

@Suite struct PostgresQueryTests {
    @Test func interpolatedValuesBecomeNumberedParametersAndNeverText() {
        let name = "x'); DROP TABLE notes; --"
        let limit: Int64 = 5
        let missing: String? = nil
        let query: PostgresQuery = "SELECT * FROM notes WHERE note = \(name) AND tag = \(missing) LIMIT \(limit)"
        #expect(query.sql == "SELECT * FROM notes WHERE note = $1 AND tag = $2 LIMIT $3")
        #expect(query.parameters == [name.postgresValue, missing.postgresValue, limit.postgresValue])
        #expect(query.parameters[1] == .null, "an absent optional is bound as NULL")
        #expect(!query.description.contains("DROP"))
    }

    @Test func aNestedQueryBringsItsParametersRenumbered() {
        let environment = "Production"
        let condition: PostgresQuery = "c.environment = \(environment) AND c.state = \("active")"
        let query: PostgresQuery = "SELECT \(Int64(7)) FROM chains c WHERE \(condition) AND c.app_id = \(Int64(3))"
        #expect(query.sql == "SELECT $1 FROM chains c WHERE c.environment = $2 AND c.state = $3 AND c.app_id = $4")
        #expect(
            query.parameters == [
                Int64(7).postgresValue, environment.postgresValue, "active".postgresValue, Int64(3).postgresValue,
            ])
        let joined = PostgresQuery.joined([condition, condition], separator: " OR ")
        #expect(joined.sql == "c.environment = $1 AND c.state = $2 OR c.environment = $3 AND c.state = $4")
        #expect(joined.parameters.count == 4)
    }

    @Test func renumberingLeavesWordsQuoteTagsAndLongNumbersAlone() {
        #expect(PostgresQuery.renumbering("a = $1 AND b = $12", by: 3) == "a = $4 AND b = $15")
        #expect(PostgresQuery.renumbering("price$1 = $1", by: 1) == "price$1 = $2")
        #expect(PostgresQuery.renumbering("$1$ body $1$ = $2", by: 2) == "$1$ body $1$ = $4")
        #expect(PostgresQuery.renumbering("$$ $ $a $", by: 2) == "$$ $ $a $")
        #expect(PostgresQuery.renumbering("é$1", by: 1) == "é$1")
        #expect(PostgresQuery.placeholders(in: "x = $2 OR y = $1 OR z = $2") == [2, 1, 2])
    }

    @Test func aReferringFragmentNamesParametersAlreadyBound() {
        let condition: PostgresQuery = "g.app_id = $1 AND g.environment = $2"
        let query: PostgresQuery = """
            WITH fresh AS (SELECT \(Int64(4)) AS app_id, \("Sandbox") AS environment)
            DELETE FROM chains g WHERE \(referring: condition)
            """
        #expect(query.sql.hasSuffix("DELETE FROM chains g WHERE g.app_id = $1 AND g.environment = $2"))
        #expect(query.parameters.count == 2)
    }
}
