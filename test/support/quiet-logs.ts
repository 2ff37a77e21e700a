// Request logs are JSON lines on stdout; in tests they only bury the results. Set
// TEST_LOGS=1 to see them.
if (process.env.TEST_LOGS === undefined) process.env.POWERTOOLS_LOG_LEVEL = 'SILENT'
// The SDK's notice that Node 20 support ends in 2027 is for the README, not every test file.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'
