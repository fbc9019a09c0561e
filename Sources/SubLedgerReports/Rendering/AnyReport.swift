/// Any one report's value, for callers that choose the report at run time.
public enum AnyReport: Sendable, Hashable, Encodable {
    case summary(SummaryReport)
    case active(ActiveReport)
    case expiring(ExpiringReport)
    case churn(ChurnReport)
    case refunds(RefundsReport)
    case transfers(TransfersReport)
    case unclaimed(UnclaimedReport)
    case account(AccountTimeline)
    case original(ChainAudit)
    case activeOverTime(ActiveOverTimeReport)
    case quarantined(QuarantinedReport)
    case consumption(ConsumptionReport)
    case externalPurchases(ExternalPurchasesReport)
    case trials(TrialsReport)
    case retention(RetentionReport)
    case mrr(MRRReport)
    case revenue(RevenueReport)

    /// Encodes as the wrapped report itself (no wrapper object).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .summary(let report): try report.encode(to: encoder)
        case .active(let report): try report.encode(to: encoder)
        case .expiring(let report): try report.encode(to: encoder)
        case .churn(let report): try report.encode(to: encoder)
        case .refunds(let report): try report.encode(to: encoder)
        case .transfers(let report): try report.encode(to: encoder)
        case .unclaimed(let report): try report.encode(to: encoder)
        case .account(let report): try report.encode(to: encoder)
        case .original(let report): try report.encode(to: encoder)
        case .activeOverTime(let report): try report.encode(to: encoder)
        case .quarantined(let report): try report.encode(to: encoder)
        case .consumption(let report): try report.encode(to: encoder)
        case .externalPurchases(let report): try report.encode(to: encoder)
        case .trials(let report): try report.encode(to: encoder)
        case .retention(let report): try report.encode(to: encoder)
        case .mrr(let report): try report.encode(to: encoder)
        case .revenue(let report): try report.encode(to: encoder)
        }
    }

    /// The report as rows and columns.
    public var table: ReportTable {
        switch self {
        case .summary(let report): report.table
        case .active(let report): report.table
        case .expiring(let report): report.table
        case .churn(let report): report.table
        case .refunds(let report): report.table
        case .transfers(let report): report.table
        case .unclaimed(let report): report.table
        case .account(let report): report.table
        case .original(let report): report.table
        case .activeOverTime(let report): report.table
        case .quarantined(let report): report.table
        case .consumption(let report): report.table
        case .externalPurchases(let report): report.table
        case .trials(let report): report.table
        case .retention(let report): report.table
        case .mrr(let report): report.table
        case .revenue(let report): report.table
        }
    }
}
