import PostgresLibPQ

/// The SQL `ChainAggregates.refresh` sends for the chains of one environment, in its order: each statement with
/// `$1` the app id, `$2` the environment and `$3` the chains (a text array; the first statement takes none). For
/// `scripts/bench` (`subledger-bench refresh-sql`), whose pgbench side must run what the report projector runs:
/// taken from the statements themselves, it cannot fall behind them.
public enum ChainAggregateStatements {
    public static var refreshSQL: [String] {
        [
            ChainAggregates.plansForThisTransaction.sql,
            ChainCohortFactsRows.refreshStatement.sql,
            ChainMoneyFactsRows.refreshStatement.sql,
            OperationalReportRows.refreshStatement.sql,
        ]
    }
}
