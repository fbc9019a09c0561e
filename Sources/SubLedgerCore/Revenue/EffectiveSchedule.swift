/// Values in force from a day on, until the next one's day: tax rates per storefront, exchange rates.
/// `value(on:)` is the nearest earlier (or same-day) value; before the first there is none, never a guess.
public struct EffectiveSchedule<Value: Sendable & Hashable>: Sendable, Hashable {
    private var entries: [(day: Int64, value: Value)]

    public init(_ entries: [(day: Int64, value: Value)]) {
        self.entries = entries.sorted { $0.day < $1.day }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.entries.map(\.day) == rhs.entries.map(\.day) && lhs.entries.map(\.value) == rhs.entries.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.day)
            hasher.combine(entry.value)
        }
    }

    /// The value in force on `day`.
    public func value(on day: Int64) -> Value? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].day <= day { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : entries[low - 1].value
    }
}
