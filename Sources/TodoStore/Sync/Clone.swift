#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GitKit
import TodoCore

extension Household {
    /// A new member joins: creates the household from the remote's `main` (or, if the remote is
    /// empty, as a new household whose history the first sync pushes). Nothing is left behind
    /// when it fails.
    public static func clone(
        home: String, name: String, url: String, identity: Identity, clock: WallClock = .system, driverCommand: String,
        options: SyncOptions
    ) throws -> Household {
        try make(home: home, name: name, identity: identity, clock: clock, driverCommand: driverCommand) { household in
            let repo = household.repo
            try household.setRemote(url)
            let started = clock.nowMillis()
            try chooseCertificates(repo, options)
            let network = Network(url: url, options: options, deadline: monotonicSeconds() + options.timeout)
            try network.run("fetch") { cb in
                try repo.fetch(url: url, refspecs: ["+refs/heads/main:\(trackingRef)"], callbacks: cb)
            }
            if let tip = try repo.resolve(reference: trackingRef) {
                try Incoming.validate(repo, tip: tip, have: [])
                try repo.updateReference(branch, to: tip, expected: nil, message: "clone")
                try repo.checkoutAll(tree: try repo.commit(tip).tree)
            } else {
                try household.commitMergeSetup()
            }
            // Joining is the first exchange with the remote: `todo status` counts it as a sync.
            household.recordSync(at: started, error: nil, remote: redactedURL(url))
        }
    }
}
