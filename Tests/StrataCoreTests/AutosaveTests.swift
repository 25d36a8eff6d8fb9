import Foundation
import Strata
import Testing

/// A clock that moves only when a test advances it.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [(deadline: Instant, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    /// How many sleeps are waiting for the clock to move.
    var sleepers: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                guard deadline > state.now else { return true }
                state.sleepers.append((deadline, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves the clock on and wakes the sleeps whose deadline passed.
    func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let woken = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return woken
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}

/// Autosave of the main context, timed by a clock the tests move.
@MainActor @Suite struct AutosaveTests {
    let controls = StoreControls()
    let container: ModelContainer
    let clock = ManualClock()
    let day = Date(timeIntervalSince1970: 1_750_000_000)

    init() throws {
        container = try ModelContainer(for: Trip.self, configurations: RecordingStoreConfiguration(name: "autosave", controls: controls))
        container.mainContext.autosavePolicy = ModelContext.AutosavePolicy(delay: .seconds(1), maximumDelay: .seconds(3), clock: clock)
    }

    func trip(_ name: String) -> Trip {
        Trip(name: name, destination: "Norway", startDate: day, endDate: day.addingTimeInterval(86_400))
    }

    /// Lets the main actor run until `condition` holds; returns whether it did.
    func settle(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<10_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }

    var storedCount: Int { (try? ModelContext(container).fetchCount(FetchDescriptor<Trip>())) ?? -1 }

    @Test func theMainContextSavesOnceChangesRest() async throws {
        let main = container.mainContext
        #expect(main.autosaveEnabled && !ModelContext(container).autosaveEnabled)
        main.insert(trip("Oslo"))
        #expect(await settle { clock.sleepers == 1 })
        #expect(storedCount == 0, "autosave did not wait")
        clock.advance(by: .seconds(1))
        #expect(await settle { !main.hasChanges })
        #expect(storedCount == 1)
    }

    @Test func changesThatKeepComingAreDebouncedThenSavedPeriodically() async throws {
        let main = container.mainContext
        let oslo = trip("Oslo")
        main.insert(oslo)
        #expect(await settle { clock.sleepers == 1 })
        // A change during the wait postpones the save.
        oslo.name = "Bergen"
        clock.advance(by: .seconds(1))
        #expect(await settle { clock.sleepers == 1 })
        #expect(controls.saves.isEmpty, "autosave saved while changes kept coming")
        // Changes every second: after three seconds they are saved anyway.
        oslo.name = "Tromsø"
        clock.advance(by: .seconds(1))
        #expect(await settle { clock.sleepers == 1 })
        #expect(controls.saves.isEmpty)
        oslo.name = "Alta"
        clock.advance(by: .seconds(1))
        #expect(await settle { !main.hasChanges }, "autosave never saved changes that kept coming")
        #expect(controls.saves.count == 1)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Alta"])
    }

    @Test func aFailedAutosaveKeepsTheChangesAndRetries() async throws {
        let main = container.mainContext
        controls.failNextSaves(1)
        main.insert(trip("Oslo"))
        #expect(await settle { clock.sleepers == 1 })
        clock.advance(by: .seconds(1))
        // The failed save leaves the changes pending and waits to retry.
        #expect(await settle { clock.sleepers == 1 && controls.state.withLock { $0.failingSaves } == 0 })
        #expect(main.hasChanges && storedCount == 0)
        clock.advance(by: .seconds(2))
        #expect(await settle { clock.sleepers == 1 })
        clock.advance(by: .seconds(1))
        #expect(await settle { !main.hasChanges }, "autosave did not retry")
        #expect(storedCount == 1)
    }

    @Test func turningAutosaveOffStopsAPendingAutosave() async throws {
        let main = container.mainContext
        main.insert(trip("Oslo"))
        #expect(await settle { clock.sleepers == 1 })
        main.autosaveEnabled = false
        clock.advance(by: .seconds(5))
        #expect(await settle { clock.sleepers == 0 })
        #expect(main.hasChanges && storedCount == 0)
    }
}
