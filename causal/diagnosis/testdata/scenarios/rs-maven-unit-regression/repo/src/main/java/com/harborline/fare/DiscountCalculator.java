package com.harborline.fare;

import java.math.BigDecimal;
import java.math.RoundingMode;

public final class DiscountCalculator {
    public BigDecimal childFare(BigDecimal adult, BigDecimal discount) {
        return adult.setScale(0, RoundingMode.HALF_EVEN).multiply(BigDecimal.ONE.subtract(discount));
    }
}
