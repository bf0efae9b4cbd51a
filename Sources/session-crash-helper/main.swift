// Test-only: see CrashHelper.swift.
CrashHelper.run()
