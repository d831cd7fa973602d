extension PreferenceLayer {
    /// The environment variable that holds `key` in an environment layer: `prefix`, then the key
    /// with ASCII letters upper-cased, a `_` before each upper-case letter that follows a lower-case
    /// one (`launchCount` → `LAUNCH_COUNT`), and every character other than an ASCII letter or digit
    /// turned into `_` (`sidebar.order` → `SIDEBAR_ORDER`). Keys that share a variable
    /// (`sidebar.order` and `sidebar_order`) are reported with ``StoreEvent/environmentCollision(variable:keys:)``.
    ///
    /// ```swift
    /// PreferenceLayer.environmentVariable(forKey: "sidebar.order", prefix: "MYAPP_")  //=> "MYAPP_SIDEBAR_ORDER"
    /// ```
    public static func environmentVariable(forKey key: String, prefix: String) -> String {
        var name = prefix
        var previousWasLowercase = false
        for scalar in key.unicodeScalars {
            switch scalar.value {
            case 0x61...0x7A:  // a-z
                name.unicodeScalars.append(Unicode.Scalar(scalar.value - 0x20)!)
                previousWasLowercase = true
            case 0x41...0x5A:  // A-Z
                if previousWasLowercase { name.append("_") }
                name.unicodeScalars.append(scalar)
                previousWasLowercase = false
            case 0x30...0x39:  // 0-9
                name.unicodeScalars.append(scalar)
                previousWasLowercase = false
            default:
                name.append("_")
                previousWasLowercase = false
            }
        }
        return name
    }
}
