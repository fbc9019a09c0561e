import SubLedgerCore

/// The notifications created so far and the delivery switches, kept inside `SimulatorState`.
struct NotificationLog: Sendable {
    var records: [NotificationRecord] = []
    var indexByUUID: [String: Int] = [:]
    var settings = NotificationSettings()
    var nextDispatchOrder = 0

    mutating func append(_ record: NotificationRecord) {
        var record = record
        nextDispatchOrder += 1
        record.dispatchOrder = nextDispatchOrder
        if settings.drop {
            // Never attempted, never retried; Get Notification History still lists it.
            record.dropped = true
            record.nextAttemptAt = nil
        }
        if settings.outOfOrder, record.nextAttemptAt != nil {
            if let heldIndex = records.lastIndex(where: { $0.held }) {
                // The newer notification goes first; the held one follows it.
                nextDispatchOrder += 1
                records[heldIndex].held = false
                records[heldIndex].dispatchOrder = nextDispatchOrder
            } else {
                record.held = true
            }
        }
        indexByUUID[record.uuid] = records.count
        records.append(record)
    }

    /// Releases every held notification in creation order.
    mutating func releaseHeld() {
        for index in records.indices where records[index].held {
            nextDispatchOrder += 1
            records[index].held = false
            records[index].dispatchOrder = nextDispatchOrder
        }
    }

    /// Indices of notifications whose next attempt is due, in dispatch order; marks them in flight.
    mutating func takeDue(now: Instant) -> [NotificationRecord] {
        let due = records.indices.filter {
            let record = records[$0]
            guard let next = record.nextAttemptAt else { return false }
            return !record.held && !record.inFlight && next <= now
        }.sorted { records[$0].dispatchOrder < records[$1].dispatchOrder }
        for index in due { records[index].inFlight = true }
        return due.map { records[$0] }
    }

    /// Records one attempt's result and schedules the next retry after a failure.
    mutating func record(uuid: String, attempt: NotificationRecord.Attempt) {
        guard let index = indexByUUID[uuid] else { return }
        var record = records[index]
        record.inFlight = false
        record.attempts.append(attempt)
        let first = record.firstAttemptAt ?? attempt.date
        record.firstAttemptAt = first
        if attempt.result == "SUCCESS" {
            record.delivered = true
            record.nextAttemptAt = nil
        } else if record.retriesUsed < NotificationRetrySchedule.offsetsInHours.count {
            record.nextAttemptAt = first.adding(
                milliseconds: NotificationRetrySchedule.offsetsInHours[record.retriesUsed] * 3_600_000)
            record.retriesUsed += 1
        } else {
            record.nextAttemptAt = nil
        }
        records[index] = record
    }
}
