// Whether the addon runs under AddressSanitizer (npm run test:asan), whose
// allocator quarantines freed blocks, ignores malloc_trim and is what the
// addon's heap figures count there: memory figures say nothing then.
export const SANITIZED = (process.env.LD_PRELOAD ?? '').includes('libasan')
