import { helpPanel } from '@entry/domain';
import { useEffect, useRef, useState } from 'react';
import { useMediaQuery } from '../../lib/use-media-query.ts';

export interface HelpPanelState {
  /** Below 1024 px the panel is an overlay; from 1024 px it is docked beside the content. */
  isOverlay: boolean;
  isOpen: boolean;
  /** True for a moment after the breakpoint changes, so the panel does not slide in or out then. */
  isAnimationSuppressed: boolean;
  open(): void;
  close(): void;
  toggle(): void;
}

/** The help panel follows the width breakpoint: open when docked, closed when it becomes an overlay. */
export function useHelpPanel(): HelpPanelState {
  const isOverlay = useMediaQuery(helpPanel.mobileMediaQuery);
  const [isOpen, setIsOpen] = useState(!isOverlay);
  const [isAnimationSuppressed, setIsAnimationSuppressed] = useState(false);
  const previousIsOverlay = useRef(isOverlay);

  useEffect(() => {
    if (previousIsOverlay.current === isOverlay) return;
    previousIsOverlay.current = isOverlay;
    setIsOpen(!isOverlay);
    setIsAnimationSuppressed(true);
    const timer = window.setTimeout(
      () => setIsAnimationSuppressed(false),
      helpPanel.animationSuppressedMsAfterBreakpointChange,
    );
    return () => window.clearTimeout(timer);
  }, [isOverlay]);

  return {
    isOverlay,
    isOpen,
    isAnimationSuppressed,
    open: () => setIsOpen(true),
    close: () => setIsOpen(false),
    toggle: () => setIsOpen((current) => !current),
  };
}
