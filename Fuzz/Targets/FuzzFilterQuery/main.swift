import Foundation
import FuzzDriver
@testable import PassConsole
import PassHistory

/// The console's filter query: parsed, then run against a small history (the filter's dates and values become SQL).
enum Fixture {
    static let history: HistoryDatabase = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-filter-\(getpid()).sqlite").path
        return try! HistoryDatabase(path: path)
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilterQuery(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: Data(bytes: data, count: size), as: UTF8.self)
    guard let query = try? FilterQuery(text, now: Date(timeIntervalSince1970: 1_800_000_000)) else { return 0 }
    let filter = query.filter
    waitFor { _ = try? await Fixture.history.page(matching: filter, limit: 5) }
    waitFor { _ = try? await Fixture.history.count(matching: filter) }
    return 0
}

/// Runs the history's async `work` to the end from libFuzzer's thread (not a Swift concurrency thread: waiting is fine).
func waitFor(_ work: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await work()
        done.signal()
    }
    done.wait()
}

runLibFuzzer(fuzzFilterQuery)
