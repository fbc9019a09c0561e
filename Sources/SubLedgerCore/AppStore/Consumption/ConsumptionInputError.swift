/// Why an app server's consent or usage report was refused: a stable code and a message naming the field.
public struct ConsumptionInputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable reason; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible, CaseIterable {
        private enum Value: String, CaseIterable {
            case invalidConsumptionPercentage = "invalid_consumption_percentage"
            case invalidPlayTime = "invalid_play_time"
            case invalidDeliveryStatus = "invalid_delivery_status"
            case emptyUsageReport = "empty_usage_report"
            case invalidTransactionID = "invalid_transaction_id"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// `consumption_percentage` is not a number from 0 to 100 with at most three decimals.
        public static let invalidConsumptionPercentage = Code(.invalidConsumptionPercentage)
        /// `play_time_minutes` is negative.
        public static let invalidPlayTime = Code(.invalidPlayTime)
        /// `delivery_status` is not one of `ConsumptionDeliveryStatus`'s names.
        public static let invalidDeliveryStatus = Code(.invalidDeliveryStatus)
        /// A usage report states none of its fields.
        public static let emptyUsageReport = Code(.emptyUsageReport)
        /// `transaction_id` is not an App Store transaction id (1 to 64 digits).
        public static let invalidTransactionID = Code(.invalidTransactionID)

        public var description: String { value.rawValue }

        /// Every code, read off the cases themselves.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }
    }

    public var code: Code
    /// Names the field and what it must be; never repeats the value.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
