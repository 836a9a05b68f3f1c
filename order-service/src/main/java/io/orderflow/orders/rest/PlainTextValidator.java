package io.orderflow.orders.rest;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

/**
 * Checks {@link PlainText}, reporting the one rule broken. The messages are constant templates: the value is never
 * put into a template (user text there would be interpolated); the problem mapper shows the rejected value instead.
 */
public class PlainTextValidator implements ConstraintValidator<PlainText, String> {

    private int max;

    @Override
    public void initialize(PlainText annotation) {
        this.max = annotation.max();
    }

    @Override
    public boolean isValid(String value, ConstraintValidatorContext context) {
        if (value == null) {
            return true;
        }
        String broken = null;
        if (value.isBlank()) {
            broken = "must not be blank";
        } else if (value.length() > max) {
            broken = "must be at most {max} characters";
        } else if (value.codePoints().anyMatch(Character::isISOControl)) {
            broken = "must not contain control characters";
        } else if (value.codePoints().anyMatch(c -> c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE)) {
            broken = "must not contain unpaired surrogates"; // a pair is one code point, above U+FFFF
        }
        if (broken == null) {
            return true;
        }
        context.disableDefaultConstraintViolation();
        context.buildConstraintViolationWithTemplate(broken).addConstraintViolation();
        return false;
    }
}
