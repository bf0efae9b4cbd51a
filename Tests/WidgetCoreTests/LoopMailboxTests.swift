import Dispatch
import Synchronization
import Testing
import WidgetCore

/// The loop's mailbox: what other threads post reaches the loop in order, the loop is told
/// once per batch, and a waiter is woken without polling.
@Suite("Loop mailbox")
struct LoopMailboxTests {
    @Test("Posts from four threads all arrive, each thread's in the order it posted them")
    func postsFromThreadsArriveInOrder() {
        let mailbox = LoopMailbox<(thread: Int, index: Int)>()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<1_000 { mailbox.post((thread, index)) }
        }
        let taken = mailbox.take()
        #expect(taken.count == 4_000)
        for thread in 0..<4 {
            #expect(taken.filter { $0.thread == thread }.map(\.index) == Array(0..<1_000))
        }
        #expect(mailbox.isEmpty)
        #expect(mailbox.take().isEmpty)
    }

    @Test("The loop is signalled when the box stops being empty, not at every post")
    func signalledOncePerBatch() {
        let signals = Mutex(0)
        let mailbox = LoopMailbox<Int>(signal: { signals.withLock { $0 += 1 } })
        for value in 0..<10 { mailbox.post(value) }
        #expect(signals.withLock { $0 } == 1)
        #expect(mailbox.take() == Array(0..<10))
        mailbox.post(10)
        #expect(signals.withLock { $0 } == 2)
    }

    @Test("A waiter is woken by a post from another thread")
    func waiterWokenByPost() async {
        let mailbox = LoopMailbox<String>()
        let thread = DispatchQueue(label: "poster")
        thread.asyncAfter(deadline: .now() + .milliseconds(20)) { mailbox.post("answer") }
        while mailbox.isEmpty { await mailbox.arrivals.wait() }
        #expect(mailbox.take() == ["answer"])
    }

    @Test("A ring that came while nobody waited is kept: the next wait returns at once")
    func ringBeforeWaitIsKept() async {
        let wakeup = Wakeup()
        wakeup.ring()
        await wakeup.wait()  // would hang (and the test time out) if the ring were lost
        let woke = Mutex(false)
        let waiter = Task {
            await wakeup.wait()
            woke.withLock { $0 = true }
        }
        // Not rung since: the waiter stays asleep until the ring below.
        try? await Task.sleep(for: .milliseconds(50))
        #expect(!woke.withLock { $0 })
        wakeup.ring()
        await waiter.value
        #expect(woke.withLock { $0 })
    }
}
