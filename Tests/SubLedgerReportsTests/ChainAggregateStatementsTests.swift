import Testing

@testable import SubLedgerReports

@Suite struct ChainAggregateStatementsTests {
    /// `scripts/bench` substitutes each parameter by its role: every statement's parameters are the app, the
    /// environment and the chains, each once, and every placeholder of its text is one of them.
    @Test func everyRefreshStatementNamesTheAppTheEnvironmentAndTheChains() {
        let statements = ChainAggregateStatements.refresh
        #expect(statements.count == 4)
        #expect(statements.first?.parameters == [])
        for statement in statements.dropFirst() {
            #expect(Set(statement.parameters) == [.appID, .environment, .chains], "\(statement.sql)")
            #expect(statement.parameters.count == 3, "\(statement.sql)")
            #expect(!statement.sql.contains("$4"), "\(statement.sql)")
        }
    }
}
