extension ConsumptionUsage {
    /// A usage report as an app server sends it, checked field by field: `consumptionPercentage` 0...100 (at
    /// most three decimals: Apple counts in milliunits), `playTimeMinutes` ≥ 0, `deliveryStatus` one of
    /// `ConsumptionDeliveryStatus`'s names; at least one field present.
    public static func validated(
        consumptionPercentage: Double?, playTimeMinutes: Int64?, sampleContentProvided: Bool?, deliveryStatus: String?
    ) throws(ConsumptionInputError) -> ConsumptionUsage {
        var usage = ConsumptionUsage(sampleContentProvided: sampleContentProvided)
        if let percentage = consumptionPercentage {
            let milliunits = (percentage * 1000).rounded()
            guard percentage.isFinite, (0...100).contains(percentage), abs(milliunits - percentage * 1000) < 1e-6 else {
                throw ConsumptionInputError(
                    .invalidConsumptionPercentage,
                    "consumption_percentage must be a number from 0 to 100 with at most three decimals")
            }
            usage.consumedMilliunits = Int(milliunits)
        }
        if let minutes = playTimeMinutes {
            guard minutes >= 0 else {
                throw ConsumptionInputError(.invalidPlayTime, "play_time_minutes must be 0 or more")
            }
            usage.playTimeMinutes = minutes
        }
        if let raw = deliveryStatus {
            guard let status = ConsumptionDeliveryStatus(rawValue: raw) else {
                let names = ConsumptionDeliveryStatus.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConsumptionInputError(.invalidDeliveryStatus, "delivery_status must be one of: \(names)")
            }
            usage.deliveryStatus = status
        }
        guard !usage.isEmpty else {
            throw ConsumptionInputError(
                .emptyUsageReport,
                "a usage report needs at least one of consumption_percentage, play_time_minutes, "
                    + "sample_content_provided, delivery_status")
        }
        return usage
    }

    /// Checks an App Store transaction id as an app server reports it: 1 to 64 ASCII digits.
    public static func validatedTransactionID(_ raw: String) throws(ConsumptionInputError) -> String {
        guard (1...64).contains(raw.utf8.count), raw.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw ConsumptionInputError(
                .invalidTransactionID, "transaction_id must be an App Store transaction id (1 to 64 digits)")
        }
        return raw
    }
}
