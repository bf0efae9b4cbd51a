import Synchronization

/// Waits for `work` to finish, but no longer than `seconds`; true when it finished in time.
///
/// For headless commands (`snapshot`, `preview`) that must not hang on a provider that never
/// answers. The work keeps running after a timeout; the process exits soon after anyway.
@MainActor
func finishes(within seconds: Double, _ work: @escaping @MainActor () async -> Void) async -> Bool {
    let resumed = Mutex(false)
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        func resume(_ value: Bool) {
            let first = resumed.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(returning: value) }
        }
        Task { @MainActor in
            await work()
            resume(true)
        }
        Task {
            try? await Task.sleep(for: .seconds(max(0, seconds)))
            resume(false)
        }
    }
}
