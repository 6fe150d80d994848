it.skip('works', () => { expect(f()).toBe(1) })
