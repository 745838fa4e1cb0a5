import type { Plugin } from 'vite';

const reactRouterChunk = /[\\/]react-router[\\/]dist[\\/]production[\\/]chunk-[\w-]+\.mjs$/;
const topLevelComponent = /^(var [\w$]+ = )(React\d*\.(?:forwardRef|memo)\()/gm;
const topLevelDisplayName = /^[\w$]+\.displayName = "[\w$.]+";$/gm;

/**
 * react-router defines its components as `var NavLink = React.forwardRef(...)` followed by
 * `NavLink.displayName = "NavLink"`, neither marked pure, so the bundler keeps every component
 * the app never uses (NavLink, Form and the form-submission code, about 2 KB gzipped of the
 * entry chunk, DESIGN.md section 8). This marks those calls pure and drops the names, which
 * only development tools read; unused components are then left out.
 */
export function reactRouterPureComponents(): Plugin {
  return {
    name: 'entry-react-router-pure-components',
    apply: 'build',
    transform: {
      filter: { id: reactRouterChunk },
      handler(code) {
        let components = 0;
        const annotated = code
          .replace(topLevelComponent, (_match, declaration: string, call: string) => {
            components += 1;
            return `${declaration}/* @__PURE__ */ ${call}`;
          })
          .replace(topLevelDisplayName, '');
        if (components === 0) return null;
        return { code: annotated, map: null };
      },
    },
  };
}
