import PostgresLibPQ

/// The SQL `ChainAggregates.refresh` sends for the chains of one environment, in its order, for `scripts/bench`
/// (`subledger-bench refresh-sql`), whose pgbench side must run what the report projector runs: taken from the
/// statements themselves, it cannot fall behind them.
public enum ChainAggregateStatements {
    /// What a statement's parameter stands for.
    public enum Parameter: Sendable, Hashable {
        /// The app id.
        case appID
        /// The environment.
        case environment
        /// The chains: a text array of original transaction ids.
        case chains
    }

    /// One statement: its text, and what each of its parameters (`$1` first) stands for.
    public struct Statement: Sendable, Hashable {
        public var sql: String
        public var parameters: [Parameter]
    }

    /// The statements, the plan settings first (no parameters).
    public static var refresh: [Statement] {
        // Each statement is built with values that tell its parameters apart.
        let appID: Int64 = -1
        let environment = "environment"
        let chain = "chain"
        let roles: [PostgresValue: Parameter] = [
            appID.postgresValue: .appID, environment.postgresValue: .environment,
            PostgresArrayText.strings([chain]).postgresValue: .chains,
        ]
        return [
            ChainAggregates.plansForThisTransaction,
            ChainCohortFactsRows.refresh(appID: appID, environment: environment, chains: [chain]),
            ChainMoneyFactsRows.refresh(appID: appID, environment: environment, chains: [chain]),
            OperationalReportRows.refresh(appID: appID, environment: environment, chains: [chain]),
        ].map { query in
            Statement(
                sql: query.sql,
                parameters: query.parameters.map { value in
                    guard let role = roles[value] else { preconditionFailure("a refresh parameter of no known role") }
                    return role
                })
        }
    }
}
