import StoredKit

/// A first taste until the TabKit demo lands: a launch counter kept in the standard store.
struct Launches {
    @Stored("launchCount") var count = 0
}

let launches = Launches()
launches.count += 1
print("stored-demo has been launched \(launches.count) time(s) in this store.")
