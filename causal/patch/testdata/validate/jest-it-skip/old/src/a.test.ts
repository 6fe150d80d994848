it('works', () => { expect(f()).toBe(1) })
