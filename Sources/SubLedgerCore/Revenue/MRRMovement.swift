/// How MRR moved between two month ends, in milli-units of one currency.
///
/// Per subscriber (a chain), comparing its MRR at the previous month end with this one: from 0 to more is
/// `new` (its first paid transaction falls in the month) or `reactivation` (it had paid before); from more
/// to 0 is `churned` (counted positive, a loss); up is `expansion`, down `contraction` (positive, a loss).
/// So `previous + new + reactivation + expansion − contraction − churned = current`, exactly.
public struct MRRMovement: Hashable, Sendable, Codable {
    public var new: Int64 = 0
    public var expansion: Int64 = 0
    public var contraction: Int64 = 0
    public var churned: Int64 = 0
    public var reactivation: Int64 = 0

    public init(
        new: Int64 = 0, expansion: Int64 = 0, contraction: Int64 = 0, churned: Int64 = 0, reactivation: Int64 = 0
    ) {
        self.new = new
        self.expansion = expansion
        self.contraction = contraction
        self.churned = churned
        self.reactivation = reactivation
    }

    /// The net change: gains less losses.
    public var net: Int64 { new + expansion + reactivation - contraction - churned }

    /// Adds one subscriber's move from `previous` to `current`; `paidBefore` says whether it had paid before
    /// the month began (a return from 0 is then a reactivation, not new).
    public mutating func record(previous: Int64, current: Int64, paidBefore: Bool) {
        switch (previous > 0, current > 0) {
        case (false, true): if paidBefore { reactivation += current } else { new += current }
        case (true, false): churned += previous
        case (true, true):
            if current > previous { expansion += current - previous } else { contraction += previous - current }
        case (false, false): break
        }
    }

    /// The sum of two movements.
    public static func + (lhs: MRRMovement, rhs: MRRMovement) -> MRRMovement {
        MRRMovement(
            new: lhs.new + rhs.new, expansion: lhs.expansion + rhs.expansion,
            contraction: lhs.contraction + rhs.contraction, churned: lhs.churned + rhs.churned,
            reactivation: lhs.reactivation + rhs.reactivation)
    }
}
